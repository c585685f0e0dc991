import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../src/clients/clock.ts';
import { BadRequestError, ProtocolError, RateLimitedError, ServerError, RequestTimeoutError } from '../src/clients/errors.ts';
import { HUMAN_NOTICE } from '../src/clients/question/attribution.ts';
import { sanitizeFilename } from '../src/clients/http/file-names.ts';
import { QuestionClient } from '../src/clients/question/client.ts';
import { startServer } from '../src/fake-services/http-server.ts';
import { startFakeServices } from '../src/fake-services/index.ts';
import type { FakeQuestionOptions } from '../src/fake-services/question-service.ts';
import { closePool } from '../src/pool/pool.ts';
import { nodeSha256Hex } from './helpers/oracles.ts';
import { tempDir } from './helpers/tmp.ts';

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});
const tmp = (): string => tempDir('powprime-q-');

async function setup(question: FakeQuestionOptions = {}) {
  const clock = new ManualClock();
  const fake = await startFakeServices({ clock, question });
  running.push(fake);
  const client = new QuestionClient({ baseUrl: fake.url, stateDir: tmp(), clock, homepageUrl: 'https://questions.example/' });
  return { clock, fake, client };
}

describe('question service: the full flow against the local server', () => {
  it('asks, waits for the answer, and delivers it with the attribution', async () => {
    const { clock, client, fake } = await setup({ difficulty: 3 });
    const id = await client.query('What is a safe prime? Please attach a file.');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await client.answer(id)).toBeNull();
    clock.advance(11 * MINUTE);
    const t = await client.answer(id);
    expect(t).not.toBeNull();
    expect(t!.question).toBe('What is a safe prime? Please attach a file.');
    expect(t!.attribution).toEqual({ notice: HUMAN_NOTICE, homepage: 'https://questions.example/', models: fake.question.o.models });
    expect(t!.files?.[0]).toMatchObject({ filename: 'notes.txt', mimetype: 'text/plain' });
    const f = await client.file(id, 'notes.txt');
    expect(f.content.toString()).toContain('notes for:');
    expect(f.attribution.notice).toBe(HUMAN_NOTICE);
    // The second read comes from disk, without a request.
    const before = fake.requests.length;
    const again = await client.file(id, 'notes.txt');
    expect(again.fromCache).toBe(true);
    expect(fake.requests.length).toBe(before);
    expect(fake.question.limits.refusals).toEqual([]);
    await closePool();
  });

  it('downloaded files past fileMaxAgeMs are removed as another is saved', async () => {
    const { clock, client } = await setup({ difficulty: 3 });
    const dir = path.join(client.stateDir, 'files');
    mkdirSync(dir, { recursive: true });
    const old = ['0123456789abcdef0123456789abcdef.body', '0123456789abcdef0123456789abcdef.meta.json'].map((name) => {
      const file = path.join(dir, name);
      writeFileSync(file, '{}');
      const t = (clock.now() - 31 * 24 * 60 * MINUTE) / 1000;
      utimesSync(file, t, t);
      return file;
    });
    const id = await client.query('What is a safe prime? Please attach a file.');
    clock.advance(11 * MINUTE);
    await client.answer(id);
    const f = await client.file(id, 'notes.txt');
    expect(existsSync(f.path!)).toBe(true);
    expect(old.map(existsSync)).toEqual([false, false]);
    await closePool();
  });

  it('answers() asks 128 ids at a time and returns per-id errors', async () => {
    const { client, fake } = await setup();
    const ids = Array.from({ length: 300 }, (_, i) => `missing-${i}`);
    const out = await client.answers(ids);
    expect(out).toHaveLength(300);
    expect(out[299]).toEqual({ error: 'question not answered or not existing', id: 'missing-299' });
    expect(fake.requests.filter((r) => r === 'GET /gpt/api/answers')).toHaveLength(3);
    expect(fake.question.limits.refusals).toEqual([]);
  });

  it('page() sends per_page in a GET body and checks its range first', async () => {
    const { clock, client } = await setup({ unlimited: true, answerDelayMs: 0 });
    await client.query('first');
    clock.advance(2 * MINUTE);
    await client.query('second');
    clock.advance(2 * MINUTE);
    const page = await client.page(1, { perPage: -1 });
    expect(page).toHaveLength(1);
    expect((page[0] as { question: string }).question).toBe('second');
    await expect(client.page(1, { perPage: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(client.page(1, { perPage: 129 })).rejects.toBeInstanceOf(RangeError);
    // Each bad argument is named, as every public boundary names it.
    await expect(client.page(1.5)).rejects.toThrow(expect.objectContaining({ name: 'TypeError', argument: 'n' }));
    await expect(client.answer('')).rejects.toThrow(expect.objectContaining({ name: 'TypeError', argument: 'id' }));
    await expect(client.answers(['a', 2] as never)).rejects.toThrow(expect.objectContaining({ name: 'TypeError', argument: 'ids' }));
    await closePool();
  });

  it('follows cache headers: stats is reused for its max-age, then asked again', async () => {
    const { clock, client, fake } = await setup();
    await client.stats();
    clock.advance(30_000);
    await client.stats();
    expect(fake.requests.filter((r) => r === 'GET /gpt/api/stats')).toHaveLength(1);
    clock.advance(40_000);
    await client.stats();
    expect(fake.requests.filter((r) => r === 'GET /gpt/api/stats')).toHaveLength(2);
  });

  it('spaces calls by the limits, 1.1× the spec: twenty stats calls earn no 429', async () => {
    const { clock, client, fake } = await setup();
    const start = clock.now();
    for (let i = 0; i < 20; i++) {
      await client.stats();
      clock.advance(61_000); // outlive the cache, so every call is a request
    }
    expect(fake.question.limits.refusals).toEqual([]);
    expect(clock.now() - start).toBeGreaterThanOrEqual(19 * 66_000);
  });

  it('a restart keeps the spent budget: a new client waits for the slot', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock });
    running.push(fake);
    const dir = tmp();
    const a = new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock });
    await a.files();
    const b = new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock });
    expect(b.nextSlot('files')).toBeGreaterThanOrEqual(clock.now() + 60_000);
  });
});

describe('question service: the server side of the spec', () => {
  it('query without the cookie → 400; a bad solution → 401; a used or expired token → 401', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock, question: { unlimited: true, difficulty: 2 } });
    running.push(fake);
    const post = async (cookie: string | undefined, solution: string) => {
      const res = await request(new URL('/gpt/api/query', fake.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
        body: JSON.stringify({ solution, prompt: 'p' }),
      });
      return { status: res.statusCode, body: (await res.body.json()) as { error?: string; id?: string } };
    };
    expect((await post(undefined, '1')).status).toBe(400);
    const cfg = await request(new URL('/gpt/api/config', fake.url));
    const cookie = String(cfg.headers['set-cookie']).split(';')[0]!;
    expect(String(cfg.headers['set-cookie'])).toMatch(/^__Host-session=[^;]+; Path=\/; Secure/);
    const { nonce, difficulty } = (await cfg.body.json()) as { nonce: string; difficulty: number };
    let s = 0;
    while (!nodeSha256Hex(nonce + s).startsWith('0'.repeat(difficulty))) s++;
    let wrong = 0;
    while (nodeSha256Hex(nonce + wrong).startsWith('0'.repeat(difficulty))) wrong++;
    expect(await post(cookie, String(wrong))).toEqual({ status: 401, body: { error: 'invalid proof-of-work solution' } });
    // The token was spent by that request; a good solution now fails too.
    expect((await post(cookie, String(s))).status).toBe(401);
    const cfg2 = await request(new URL('/gpt/api/config', fake.url));
    const cookie2 = String(cfg2.headers['set-cookie']).split(';')[0]!;
    const c2 = (await cfg2.body.json()) as { nonce: string };
    let s2 = 0;
    while (!nodeSha256Hex(c2.nonce + s2).startsWith('0'.repeat(difficulty))) s2++;
    clock.advance(17 * MINUTE);
    expect(await post(cookie2, String(s2))).toEqual({ status: 401, body: { error: 'challenge expired' } });
  });

  it('the client turns a missing cookie into BadRequestError carrying the service message', async () => {
    const { client } = await setup({ unlimited: true });
    const err = await (client as unknown as { call(s: object): Promise<unknown> })
      .call({ route: 'query', method: 'POST', path: '/gpt/api/query', json: { prompt: 'x', solution: '1' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).serviceMessage).toBe('missing __Host-session cookie');
  });

  it('a 429 bans the host: RateLimitedError, then the client waits out the ban (60 minutes without Retry-After)', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock });
    running.push(fake);
    const client = new QuestionClient({ baseUrl: fake.url, stateDir: tmp(), clock, limits: 'off', attempts: 1 });
    await client.files();
    const err = await client.files().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).serviceMessage).toMatch(/rate limited/);
    expect(client.nextSlot('stats')).toBe(clock.now() + 60 * MINUTE);
  });
});

describe('question service: more of the spec', () => {
  it('a refused solution gets a fresh config and another try', async () => {
    const { client, fake } = await setup({ refuseSolutions: 1 });
    const id = await client.query('second time lucky');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(fake.requests.filter((r) => r === 'GET /gpt/api/config')).toHaveLength(2);
    expect(fake.requests.filter((r) => r === 'POST /gpt/api/query')).toHaveLength(2);
    expect(fake.question.limits.refusals).toEqual([]);
    await closePool();
  });

  it('a token that is 15 minutes old by the time its solution is ready is never used', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock, question: { difficulty: 2 } });
    running.push(fake);
    // The first config answers slowly: 15.5 minutes of clock time pass.
    let slow = true;
    let configs = 0;
    const srv = await startServer(
      [
        async (req, c) => {
          if (req.url.pathname === '/gpt/api/config') configs++;
          const res = await fake.question.handler(req, c);
          if (slow && req.url.pathname === '/gpt/api/config') {
            slow = false;
            clock.advance(15.5 * MINUTE); // the answer arrives late
          }
          return res;
        },
      ],
      clock,
    );
    running.push(srv);
    const client = new QuestionClient({ baseUrl: srv.url, stateDir: tmp(), clock });
    const id = await client.query('not with a stale token');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(fake.question.limits.refusals).toEqual([]);
    expect(configs).toBe(2); // the late token was dropped for a fresh one
    await closePool();
  });

  it('the cookie jar keeps a __Host- cookie whatever its attributes (the spec shows none); Secure ones only on https or loopback', async () => {
    const { CookieJar } = await import('../src/clients/http/cookie-jar.ts');
    const clock = new ManualClock();
    const jar = new CookieJar(clock);
    const remote = new URL('http://questions.example/gpt/api/config');
    jar.store(remote, '__Host-session=a; Path=/; Secure');
    expect(jar.header(remote)).toBeUndefined(); // Secure over plain http: refused
    const secure = new URL('https://questions.example/gpt/api/config');
    jar.store(secure, '__Host-session=b');
    expect(jar.header(secure)).toBe('__Host-session=b');
    jar.store(secure, '__Host-session=c; Path=/; Secure; Domain=questions.example');
    expect(jar.header(secure)).toBe('__Host-session=c');
    expect(jar.header(new URL('https://other.example/gpt/api/stats'))).toBeUndefined(); // kept for its own host only
    jar.store(secure, '__Host-session=d; Path=/; Secure; HttpOnly; Max-Age=soon');
    expect(jar.header(secure)).toBe('__Host-session=d'); // a Max-Age that is no number is ignored
    const loop = new URL('http://127.0.0.1:8080/gpt/api/config');
    jar.store(loop, '__Host-session=e; Path=/; Secure; Max-Age=60');
    expect(jar.header(loop)).toBe('__Host-session=e');
    clock.advance(61_000);
    expect(jar.header(loop)).toBeUndefined();
    jar.store(secure, '__Host-session=gone; Max-Age=0');
    expect(jar.header(secure)).toBeUndefined();
  });

  it('Retry-After on a 429 sets the end of the ban', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock, question: { retryAfter: true, banMs: 45 * MINUTE } });
    running.push(fake);
    const client = new QuestionClient({ baseUrl: fake.url, stateDir: tmp(), clock, limits: 'off', attempts: 1 });
    await client.files();
    const err = await client.files().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAt).toBe(clock.now() + 45 * MINUTE);
    expect(client.nextSlot('files')).toBe(clock.now() + 45 * MINUTE);
  });

  it('model websites are refreshed for the attribution once they are an hour old', async () => {
    const { clock, client, fake } = await setup({ answerDelayMs: 0 });
    const id = await client.query('refresh models');
    await client.answer(id);
    clock.advance(30 * MINUTE);
    await client.answers([id]);
    expect(fake.requests.filter((r) => r === 'GET /gpt/api/models')).toHaveLength(1);
    clock.advance(31 * MINUTE);
    await client.answers([id]);
    expect(fake.requests.filter((r) => r === 'GET /gpt/api/models')).toHaveLength(2);
    await closePool();
  });
});

describe('question service: failures become typed errors and retries', () => {
  it('a truncated body → ProtocolError', async () => {
    const clock = new ManualClock();
    const { createServer } = await import('node:http');
    const srv = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"count": 1', () => res.socket?.destroy());
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    running.push({ close: () => new Promise<void>((r) => srv.close(() => r())) });
    const port = (srv.address() as { port: number }).port;
    const client = new QuestionClient({ baseUrl: `http://127.0.0.1:${port}`, stateDir: tmp(), clock, limits: 'off', attempts: 1, timeoutMs: 5000 });
    const err = await client.stats().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as Error).message).toMatch(/truncated/);
  });

  async function flaky(responses: ((n: number) => { status: number; body?: unknown; raw?: string } | 'hang')[]) {
    const clock = new ManualClock();
    let n = 0;
    const srv = await startServer(
      [
        async (req) => {
          if (req.url.pathname !== '/gpt/api/stats') return null;
          const r = responses[Math.min(n, responses.length - 1)]!(n++);
          if (r === 'hang') {
            await new Promise((resolve) => setTimeout(resolve, 1500));
            return { status: 200, body: { count: 0, files: 0, pages: 0 } };
          }
          return r.raw !== undefined ? { status: r.status, body: Buffer.from(r.raw) } : { status: r.status, body: r.body };
        },
      ],
      clock,
    );
    running.push(srv);
    const client = new QuestionClient({ baseUrl: srv.url, stateDir: tmp(), clock, limits: 'off', timeoutMs: 300, backoffMs: 10 });
    return { client, calls: () => n };
  }

  it('a 500 is retried, then succeeds', async () => {
    const { client, calls } = await flaky([() => ({ status: 500, body: { error: 'boom' } }), () => ({ status: 200, body: { count: 1, files: 0, pages: 1 } })]);
    expect(await client.stats()).toEqual({ count: 1, files: 0, pages: 1 });
    expect(calls()).toBe(2);
  });

  it('persistent 500s end in ServerError with the message', async () => {
    const { client, calls } = await flaky([() => ({ status: 503, body: { error: 'maintenance' } })]);
    const err = await client.stats().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).serviceMessage).toBe('maintenance');
    expect(calls()).toBe(3);
  });

  it('a body that is not JSON is retried like a 5xx, then ProtocolError; a JSON body of the wrong shape is thrown at once', async () => {
    const garbage = await flaky([() => ({ status: 200, raw: '<html>oops' })]);
    await expect(garbage.client.stats()).rejects.toBeInstanceOf(ProtocolError);
    expect(garbage.calls()).toBe(3);
    const recovers = await flaky([() => ({ status: 200, raw: '<html>oops' }), () => ({ status: 200, body: { count: 2, files: 0, pages: 1 } })]);
    expect(await recovers.client.stats()).toEqual({ count: 2, files: 0, pages: 1 });
    const shape = await flaky([() => ({ status: 200, body: { count: 'many' } })]);
    await expect(shape.client.stats()).rejects.toThrow(/field 'count'/);
    expect(shape.calls()).toBe(1);
  });

  it('no answer within the timeout → RequestTimeoutError after the retries', async () => {
    const { client, calls } = await flaky([() => 'hang']);
    await expect(client.stats()).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(calls()).toBe(3);
  });
});

describe('question client argument checks', () => {
  it('rejects bad options and arguments by name', async () => {
    expect(() => new QuestionClient({ baseUrl: 'not a url' })).toThrow(/baseUrl/);
    expect(() => new QuestionClient({ baseUrl: 'https://questions.example', limits: 'off' })).toThrow(/loopback/);
    const { client } = await setup();
    await expect(client.query('' as string)).rejects.toThrow(/prompt/);
    await expect(client.query(7 as never)).rejects.toThrow(/^prompt must be a string \(got 7\)$/);
    await expect(client.query('hi', { signal: {} as never })).rejects.toThrow(TypeError);
    await expect(client.query('hi', { signal: {} as never })).rejects.toThrow(/^signal must be an AbortSignal \(got an object\)$/);
    await expect(client.answer(3 as never)).rejects.toThrow(/id/);
    await expect(client.answers('x' as never)).rejects.toThrow(/ids/);
  });

  it('file names from the server cannot leave the cache folder', () => {
    expect(sanitizeFilename('notes.txt')).toBe('notes.txt');
    expect(sanitizeFilename('../../etc/passwd')).toMatch(/^passwd~[0-9a-f]{12}$/);
    expect(sanitizeFilename('..')).toMatch(/^_~[0-9a-f]{12}$/);
    expect(sanitizeFilename('a\\b\\c.txt')).toMatch(/^c~[0-9a-f]{12}\.txt$/);
    expect(sanitizeFilename('.hidden')).toMatch(/^_hidden~/);
    expect(sanitizeFilename('')).toMatch(/^_~/);
    // Names that clean up alike stay apart; long names fit a file system's 255 bytes.
    expect(sanitizeFilename('x?y')).not.toBe(sanitizeFilename('x_y'));
    expect(sanitizeFilename('a/x')).not.toBe(sanitizeFilename('x'));
    for (const long of ['é'.repeat(300), `${'a'.repeat(400)}.pdf`, '😀'.repeat(120)]) {
      const s = sanitizeFilename(long);
      expect(Buffer.byteLength(s)).toBeLessThanOrEqual(200);
      expect(s).not.toMatch(/\uFFFD/);
    }
    expect(sanitizeFilename(`${'a'.repeat(400)}.pdf`)).toMatch(/\.pdf$/);
    expect(() => sanitizeFilename(undefined as never)).toThrow(TypeError);
  });
});
