// One policy for a corrupt state file: the clients' limiter record, cookie
// jar, HTTP cache entries and pipeline queues are set aside (kept as
// <name>.corrupt-<ms>) with a warning and start afresh; the registry keystore,
// which holds keys, is refused with StateFileCorruptError and left untouched.
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../src/clients/clock.ts';
import { CookieJar } from '../src/clients/http/cookie-jar.ts';
import { RateLimiter } from '../src/clients/http/rate-limiter.ts';
import { ResponseCache } from '../src/clients/http/cache.ts';
import { Keystore, QuestionClient, QuestionPipeline, StateFileCorruptError } from '../src/index.ts';
import { tempDir } from './helpers/tmp.ts';
import { AdClient } from '../src/clients/ads/client.ts';
import { startFakeServices } from '../src/fake-services/index.ts';

const GARBAGE = '{"calls": {"x": [1, 2'; // a write cut short

afterEach(() => vi.restoreAllMocks());

function setAside(dir: string, name: string): string[] {
  return readdirSync(dir).filter((f) => f.startsWith(`${name}.corrupt-`));
}

describe('set aside and start afresh', () => {
  it.each([
    ['rate-limiter record', (dir: string) => new RateLimiter({ stats: [{ limit: 1, periodMs: 60_000 }] }, new ManualClock(), path.join(dir, 'limits.json')).nextSlot('stats'), 'limits.json'],
    ['cookie jar', (dir: string) => new CookieJar(new ManualClock(), path.join(dir, 'cookies.json')).header(new URL('http://127.0.0.1/')), 'cookies.json'],
    ['pipeline queues', (dir: string) => new QuestionPipeline({ client: new QuestionClient({ baseUrl: 'http://127.0.0.1:9', stateDir: dir }), stateDir: dir }).status(), 'pipeline-127.0.0.1_9.json'],
  ] as const)('%s', (_what, open, name) => {
    const dir = tempDir('powprime-state-');
    writeFileSync(path.join(dir, name), GARBAGE);
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    expect(() => open(dir)).not.toThrow();
    expect(setAside(dir, name)).toHaveLength(1);
    expect(readFileSync(path.join(dir, setAside(dir, name)[0]!), 'utf8')).toBe(GARBAGE);
    expect(existsSync(path.join(dir, name))).toBe(false);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/not valid JSON; moved to .*corrupt/);
  });

  it('an HTTP cache entry: a miss, the bad entry set aside', () => {
    const dir = tempDir('powprime-state-');
    const cache = new ResponseCache(new ManualClock(), dir);
    const req = { method: 'GET' as const, url: new URL('http://127.0.0.1/x') };
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${cache.key(req)}.json`), GARBAGE);
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    expect(cache.get(req)).toBeNull();
    expect(setAside(dir, `${cache.key(req)}.json`)).toHaveLength(1);
  });
});

describe('state files of the wrong shape are set aside like invalid JSON', () => {
  it.each([
    ['cookies.json', '{}', 'is not a list of cookies'],
    ['cookies.json', '[null]', 'has a cookie of the wrong shape (entry 1)'],
    ['cookies.json', '[{"name":"a","value":"b","host":"h","path":"/","secure":false,"expires":"soon"}]', 'has a cookie of the wrong shape (entry 1)'],
  ])('%s holding %s', (name, text, problem) => {
    const dir = tempDir('powprime-state-');
    writeFileSync(path.join(dir, name), text);
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const jar = new CookieJar(new ManualClock(), path.join(dir, name));
    expect(jar.header(new URL('http://127.0.0.1/'))).toBeUndefined();
    expect(setAside(dir, name)).toHaveLength(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain(problem);
  });

  it.each([['42'], ['{"status":"x"}'], ['{"policy":{"v":99},"status":200,"headers":{},"body":""}']])('an HTTP cache entry holding %s: a miss, set aside', (text) => {
    const dir = tempDir('powprime-state-');
    const cache = new ResponseCache(new ManualClock(), dir);
    const req = { method: 'GET' as const, url: new URL('http://127.0.0.1/x') };
    writeFileSync(path.join(dir, `${cache.key(req)}.json`), text);
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    expect(cache.get(req)).toBeNull();
    expect(setAside(dir, `${cache.key(req)}.json`)).toHaveLength(1);
  });

  it.each([
    ['index.json', '{"at":1,"value":"x"}', (c: AdClient) => c.all()],
    ['leaderboard.json', '{"at":1,"value":[1]}', (c: AdClient) => c.leaderboard()],
    ['index.json', '[]', (c: AdClient) => c.all()],
  ] as const)("the ads client's %s holding %s: set aside, fetched again", async (name, text, call) => {
    const fake = await startFakeServices();
    try {
      const dir = tempDir('powprime-state-');
      const clock = new ManualClock();
      const client = new AdClient({ baseUrl: fake.url.href, stateDir: dir, clock });
      const file = client.hostFile(name);
      expect(path.basename(file)).toBe(name.replace('.json', `-127.0.0.1_${fake.url.port}.json`)); // per host
      writeFileSync(file, text);
      const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
      await call(client);
      expect(setAside(dir, path.basename(file))).toHaveLength(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/is not a saved answer|holds an answer of the wrong shape/);
      expect(existsSync(file)).toBe(true); // fetched and saved again
    } finally {
      fake.close();
    }
  });
});

describe('the cookie jar shared by processes', () => {
  it("a second jar on the same file keeps the first one's cookie (re-read and merged under the lock)", () => {
    const file = path.join(tempDir('powprime-state-'), 'cookies.json');
    const clock = new ManualClock();
    const url = new URL('http://127.0.0.1/');
    const a = new CookieJar(clock, file);
    const b = new CookieJar(clock, file);
    a.store(url, 'first=1; Path=/');
    b.store(url, 'second=2; Path=/');
    expect(new CookieJar(clock, file).header(url)).toBe('first=1; second=2');
    expect(readdirSync(path.dirname(file))).toEqual(['cookies.json']);
  });
});

describe('the keystore is never replaced', () => {
  it('a corrupt keys.json is StateFileCorruptError and stays as it was', () => {
    const dir = tempDir('powprime-state-');
    const file = path.join(dir, 'keys.json');
    writeFileSync(file, GARBAGE);
    expect(() => new Keystore(file)).toThrow(StateFileCorruptError);
    expect(() => new Keystore(file)).toThrow(/holds keys/);
    expect(readFileSync(file, 'utf8')).toBe(GARBAGE);
    expect(readdirSync(dir)).toEqual(['keys.json']);
  });
});

describe('the HTTP cache stays bounded over a long run', () => {
  const response = (maxAge: number) => ({ status: 200, headers: { 'cache-control': `max-age=${maxAge}` }, body: Buffer.from('{}') });

  it('stale entries leave memory and disk; the folder is swept of them as new ones come', () => {
    const clock = new ManualClock();
    const dir = tempDir('powprime-cache-');
    const cache = new ResponseCache(clock, dir);
    const req = (i: number) => ({ method: 'GET' as const, url: new URL(`http://127.0.0.1/answers`), json: [`id-${i}`] });
    for (let i = 0; i < 50; i++) cache.put(req(i), response(60));
    expect(readdirSync(dir)).toHaveLength(50);
    expect(cache.get(req(0))).not.toBeNull();
    // An hour on, a new entry sweeps the stale ones; a stale entry asked for is gone from disk as well.
    clock.advance(3_600_000);
    expect(cache.get(req(1))).toBeNull();
    expect(readdirSync(dir)).toHaveLength(49);
    cache.put(req(100), response(60));
    expect(readdirSync(dir)).toEqual([`${cache.key(req(100))}.json`]);
  });

  it('memory holds at most 256 entries; older ones are read back from the folder', () => {
    const clock = new ManualClock();
    const dir = tempDir('powprime-cache-');
    const cache = new ResponseCache(clock, dir);
    const req = (i: number) => ({ method: 'GET' as const, url: new URL(`http://127.0.0.1/answer/${i}`) });
    for (let i = 0; i < 1000; i++) cache.put(req(i), response(3600));
    expect((cache as unknown as { memory: Map<string, unknown> }).memory.size).toBe(256);
    expect(cache.get(req(0))?.status).toBe(200);
  });
});
