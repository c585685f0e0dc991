/**
 * Posting a question, where a token is good for one request and the query
 * route's slots are few: a POST whose fate is unknown is never sent twice, the
 * slot is waited for before a token is taken, and the client's options are
 * checked where they are given. Real HTTP servers: the local fake, and small
 * ones that fail in the ways under test.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HOUR, ManualClock, MINUTE } from '../src/clients/clock.ts';
import { RequestTimeoutError, ServerError } from '../src/clients/errors.ts';
import { banUntil, DEFAULT_BAN_MS } from '../src/clients/http/retry-after.ts';
import { QuestionClient } from '../src/clients/question/client.ts';
import { startServer, type FakeHandler } from '../src/fake-services/http-server.ts';
import { startFakeServices } from '../src/fake-services/index.ts';
import { closePool } from '../src/pool/pool.ts';
import { tempDir } from './helpers/tmp.ts';

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});
afterAll(() => closePool());
const tmp = (): string => tempDir('powprime-post-');

/** A question service that keeps every question it is sent, then answers the first POST with `first`. */
async function storingServer(first: 'bad-gateway' | 'hang') {
  const clock = new ManualClock();
  const sessions = new Map<string, { nonce: string; used: boolean }>();
  const stored: string[] = [];
  let posts = 0;
  const handler: FakeHandler = async (req) => {
    if (req.url.pathname === '/gpt/api/config') {
      const sid = randomBytes(8).toString('hex');
      const nonce = randomBytes(8).toString('hex');
      sessions.set(sid, { nonce, used: false });
      return { status: 200, headers: { 'set-cookie': `__Host-session=${sid}; Path=/; Secure` }, body: { nonce, difficulty: 1 } };
    }
    if (req.url.pathname !== '/gpt/api/query') return null;
    posts++;
    const sid = /__Host-session=([^;]+)/.exec(String(req.headers.cookie ?? ''))?.[1] ?? '';
    const token = sessions.get(sid);
    const body = JSON.parse(req.body) as { solution: string; prompt: string };
    if (!token || token.used) return { status: 401, body: { error: 'challenge already used' } };
    token.used = true;
    if (
      !createHash('sha256')
        .update(token.nonce + body.solution)
        .digest('hex')
        .startsWith('0')
    )
      return { status: 401, body: { error: 'invalid solution' } };
    stored.push(body.prompt);
    if (stored.length === 1) {
      if (first === 'bad-gateway') return { status: 502, body: { error: 'bad gateway' } };
      await new Promise((r) => setTimeout(r, 1500));
    }
    return { status: 200, body: { id: `q${stored.length}` } };
  };
  const srv = await startServer([handler], clock);
  running.push(srv);
  const client = new QuestionClient({ baseUrl: srv.url, stateDir: tmp(), clock, limits: 'off', backoffMs: 10, timeoutMs: 400, pow: { backend: 'js' } });
  return { client, stored, posts: () => posts };
}

describe('a POST whose fate is unknown is not sent again', () => {
  it('a 502 after the question was stored: thrown, one POST, one question', async () => {
    const { client, stored, posts } = await storingServer('bad-gateway');
    await expect(client.query('once')).rejects.toBeInstanceOf(ServerError);
    expect(posts()).toBe(1);
    expect(stored).toEqual(['once']);
  });

  it('no answer within the timeout: thrown, one POST, one question', async () => {
    const { client, stored, posts } = await storingServer('hang');
    await expect(client.query('once')).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(posts()).toBe(1);
    expect(stored).toEqual(['once']);
  });
});

describe('the query slot is waited for before the token is taken', () => {
  it('nine questions within the spec limits (8 an hour): nine POSTs, none refused or expired', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock, question: { difficulty: 1 } });
    running.push(fake);
    const client = new QuestionClient({ baseUrl: fake.url, clock, stateDir: tmp(), pow: { backend: 'js' } });
    const t0 = clock.now();
    for (let i = 0; i < 9; i++) expect(await client.query(`question ${i}`)).toMatch(/^[0-9a-f-]{36}$/);
    expect(fake.requests.filter((r) => r === 'POST /gpt/api/query')).toHaveLength(9);
    expect(fake.question.limits.refusals).toEqual([]);
    // The ninth waited for the hourly window (stretched by 1.1), not for a token to expire.
    expect(clock.now() - t0).toBeGreaterThanOrEqual(1.1 * HOUR);
  });

  it('a per-call signal stops the wait for the slot mid-wait, and nothing more is sent', async () => {
    const manual = new ManualClock();
    // Sleeps like the manual clock until told to block: then a sleep ends only with its signal.
    let block = false;
    const clock = {
      now: () => manual.now(),
      sleep: (ms: number, signal?: AbortSignal) =>
        block
          ? new Promise<void>((_, reject) => {
              if (signal?.aborted) return reject(signal.reason);
              signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
            })
          : manual.sleep(ms, signal),
    };
    const fake = await startFakeServices({ clock: manual, question: { difficulty: 1 } });
    running.push(fake);
    const client = new QuestionClient({ baseUrl: fake.url, clock, stateDir: tmp(), pow: { backend: 'js' } });
    await client.query('first');
    const sent = fake.requests.length;
    block = true;
    const stop = new AbortController();
    const second = client.query('second', { signal: stop.signal });
    await new Promise((r) => setTimeout(r, 100));
    stop.abort(new Error('stopped by the caller'));
    await expect(second).rejects.toThrow('stopped by the caller');
    expect(fake.requests.length).toBe(sent);
  });
});

describe('client options', () => {
  it('limits for one route keep the spec windows of the others', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock });
    running.push(fake);
    const client = new QuestionClient({ baseUrl: fake.url, clock, stateDir: tmp(), limits: { query: [{ limit: 1, periodMs: 2 * MINUTE }] } });
    await client.config();
    expect(client.nextSlot('config') - clock.now()).toBeGreaterThanOrEqual(MINUTE);
    await client.config();
    expect(fake.question.limits.refusals).toEqual([]);
  });

  it('bad options are a TypeError or RangeError naming the option; undefined means the default', () => {
    const base = { baseUrl: 'http://127.0.0.1:9', stateDir: tmp() };
    const bad: [Record<string, unknown>, string][] = [
      [{ attempts: 0 }, 'attempts'],
      [{ attempts: 1.5 }, 'attempts'],
      [{ attempts: '3' }, 'attempts'],
      [{ timeoutMs: -5 }, 'timeoutMs'],
      [{ timeoutMs: Number.NaN }, 'timeoutMs'],
      // Past setTimeout's range Node would fire the timer at once: every request would time out.
      [{ timeoutMs: 2 ** 31 }, 'timeoutMs'],
      [{ timeoutMs: 1e20 }, 'timeoutMs'],
      [{ backoffMs: -1 }, 'backoffMs'],
      [{ maxWaitMs: -1 }, 'maxWaitMs'],
      [{ banMs: 0 }, 'banMs'],
      [{ limits: { query: [{ limit: 0, periodMs: 1000 }] } }, 'limits'],
      [{ limits: [] }, 'limits'],
      [{ limits: { nosuchroute: [{ limit: 1, periodMs: 1000 }] } }, 'limits'],
      [{ onWait: 'yes' }, 'onWait'],
      [{ signal: {} }, 'signal'],
      [{ stateDir: '' }, 'stateDir'],
    ];
    for (const [opts, name] of bad) {
      let err: unknown;
      try {
        new QuestionClient({ ...base, ...opts } as never);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(opts)).toMatchObject({ argument: name });
      expect(err instanceof TypeError || err instanceof RangeError).toBe(true);
    }
    expect(() => new QuestionClient({ ...base, attempts: undefined, timeoutMs: undefined })).not.toThrow();
  });
});

describe('Retry-After', () => {
  it('a fraction, a negative number or a word is the default ban; whole seconds and HTTP dates are read', () => {
    const now = Date.UTC(2026, 0, 1);
    for (const v of ['1.5', '-1', ' -30 ', 'later', '2026-01-01']) expect(banUntil(v, now), v).toBe(now + DEFAULT_BAN_MS);
    expect(banUntil('0', now)).toBe(now);
    expect(banUntil('90', now)).toBe(now + 90_000);
    expect(banUntil('Thu, 01 Jan 2026 00:30:00 GMT', now)).toBe(now + HOUR / 2);
    expect(banUntil(undefined, now, 5 * MINUTE)).toBe(now + 5 * MINUTE);
  });
});
