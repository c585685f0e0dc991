// How long a service command can take when the service misbehaves, against
// real HTTP servers: one that went away after a first success (a probe says
// so before any rate-limit wait), one that accepts and never answers
// (--timeout bounds the whole command), and one whose body never ends (too
// large is not transient: fetched once). The time bounds are generous sanity
// bounds, far from the waits they rule out, not measurements.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServices } from '../src/fake-services/index.ts';
import { AdClient, DeadlineError, ResponseTooLargeError } from '../src/index.ts';
import { runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

const limitsFile = (dir: string, url: string): string => path.join(dir, `limits-${new URL(url).host.replace(/[^a-zA-Z0-9.-]/g, '_')}.json`);
const oneLine = (stderr: string): void => {
  expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
  expect(stderr).toMatch(/^powprime: /);
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
}

/** The question service's config and stats routes, answered at once. */
function questionServer(hits: string[]): Server {
  return createServer((req, res) => {
    hits.push(req.url ?? '');
    const body = req.url === '/gpt/api/config' ? { nonce: 'n', difficulty: 1 } : req.url === '/gpt/api/stats' ? { count: 3, files: 0, pages: 1 } : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { error: 'no such route' }));
  });
}

describe('a service that went away after a first success', () => {
  it('is probed before the rate-limit wait: ECONNREFUSED at once, not after the minute stats waits, nothing spent', async () => {
    const hits: string[] = [];
    const server = questionServer(hits);
    const url = await listen(server);
    const dir = tempDir('powprime-deadline-');
    const first = await runCli('question', 'stats', '--base-url', url, '--state-dir', dir);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe('3 questions, 0 files, 1 pages\n');
    expect(hits).toContain('/gpt/api/stats');
    await close(server);
    const spent = JSON.parse(readFileSync(limitsFile(dir, url), 'utf8')) as { calls: Record<string, number[]> };
    expect(spent.calls.stats).toHaveLength(1);

    // stats allows 1 a minute (66 s with the margin): without the probe this waits that out, then is refused.
    const started = Date.now();
    const again = await runCli('question', 'stats', '--base-url', url, '--state-dir', dir);
    const took = Date.now() - started;
    expect(again.status).toBe(1);
    oneLine(again.stderr);
    expect(again.stderr).toMatch(/^powprime: GET \/gpt\/api\/stats: cannot reach 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)$/m);
    expect(again.stderr).not.toMatch(/waits \d+ s/);
    expect(took).toBeLessThan(40_000);
    // The probe is a connect, not a request: the record holds the first call only.
    const after = JSON.parse(readFileSync(limitsFile(dir, url), 'utf8')) as { calls: Record<string, number[]> };
    expect(after.calls.stats).toEqual(spent.calls.stats);
  });
});

describe('--timeout', () => {
  let server: Server;
  let url = '';
  const hits: string[] = [];
  beforeAll(async () => {
    // Accepts every request and never answers.
    server = createServer((req) => void hits.push(req.url ?? ''));
    url = await listen(server);
  });
  afterAll(() => close(server));
  afterEach(() => void hits.splice(0));
  it('question run runs until every answer is in: --timeout is not in its help, and refused with why (exit 2, no request)', async () => {
    const help = await runCli('question', 'run', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--max-interval');
    expect(help.stdout).not.toContain('--timeout');
    // The other question commands still offer it.
    expect((await runCli('question', 'stats', '--help')).stdout).toContain('--timeout');
    const prompts = path.join(tempDir('powprime-deadline-'), 'prompts.txt');
    writeFileSync(prompts, 'one\n');
    const r = await runCli('question', 'run', '--prompts', prompts, '--base-url', url, '--state-dir', tempDir('powprime-deadline-'), '--timeout', '5s');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--timeout does not go with question run');
    expect(hits).toEqual([]);
  });

  it('a server that never answers: one line "no answer within 2s", exit 1, long before one request timeout (30 s)', async () => {
    const started = Date.now();
    const r = await runCli('question', 'stats', '--base-url', url, '--state-dir', tempDir('powprime-deadline-'), '--timeout', '2s');
    const took = Date.now() - started;
    expect(r.status).toBe(1);
    oneLine(r.stderr);
    expect(r.stderr).toBe(`powprime: ${new URL(url).host}: no answer within 2s (--timeout)\n`);
    expect(took).toBeLessThan(25_000);
    // The first request was made (and abandoned at the deadline).
    expect(hits.length).toBeGreaterThanOrEqual(1);
  });

  it('the same for the registry and the ads (the flag is every service command’s)', async () => {
    const reg = await runCli('registry', 'ranges', '--base-url', url, '--state-dir', tempDir('powprime-deadline-'), '--no-limits', '--timeout', '1500ms');
    expect(reg.status).toBe(1);
    expect(reg.stderr).toBe(`powprime: ${new URL(url).host}: no answer within 1500ms (--timeout)\n`);
    const ads = await runCli('ads', 'random', '--base-url', url, '--state-dir', tempDir('powprime-deadline-'), '--timeout', '1s');
    expect(ads.status).toBe(1);
    expect(ads.stderr).toBe(`powprime: ${new URL(url).host}: no answer within 1s (--timeout)\n`);
  });

  it('a rate-limit wait that would end after the deadline fails at once, naming both', async () => {
    const ok: string[] = [];
    const up = questionServer(ok);
    const upUrl = await listen(up);
    try {
      const dir = tempDir('powprime-deadline-');
      expect((await runCli('question', 'stats', '--base-url', upUrl, '--state-dir', dir)).status).toBe(0);
      const started = Date.now();
      const r = await runCli('question', 'stats', '--base-url', upUrl, '--state-dir', dir, '--timeout', '30s');
      expect(r.status).toBe(1);
      oneLine(r.stderr);
      expect(r.stderr).toMatch(/^powprime: stats would have to wait: the stats limit of 1 per minute is used up until \S+, after --timeout 30s ends$/m);
      expect(Date.now() - started).toBeLessThan(25_000);
    } finally {
      await close(up);
    }
  });

  it("question ask --wait: the wait for the answer (the command's own, between looks) ends at the deadline too", async () => {
    // A real stand-in, whose answers come after 10 minutes: the question is posted, then the look a minute later is never reached.
    const fake = await startFakeServices({ question: { difficulty: 1, answerDelayMs: 600_000 } });
    try {
      const base = fake.url.href.replace(/\/$/, '');
      const started = Date.now();
      const r = await runCli('question', 'ask', 'what is a safe prime?', '--wait', '--base-url', base, '--state-dir', tempDir('powprime-deadline-'), '--timeout', '8s');
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^(powprime: )?posted question \S+$/m);
      expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(`powprime: ${fake.url.host}: no answer within 8s (--timeout)`);
      expect(Date.now() - started).toBeLessThan(50_000);
      expect(fake.requests.filter((q) => q === 'POST /gpt/api/query')).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  it('bad durations are bad usage (exit 2), named', async () => {
    for (const bad of ['soon', '0', '-5s', '2y']) {
      const r = await runCli('ads', 'random', '--base-url', url, '--timeout', bad);
      expect(r.status, bad).toBe(2);
      oneLine(r.stderr);
      expect(r.stderr).toMatch(/--timeout must be/);
    }
    expect(hits).toEqual([]);
  });

  it('DeadlineError says the deadline in the units --timeout takes', () => {
    expect(new DeadlineError(30_000, 'h:1', '--timeout').message).toBe('h:1: no answer within 30s (--timeout)');
    expect(new DeadlineError(300_000).message).toBe('no answer within 5m');
    expect(new DeadlineError(7_200_000).message).toBe('no answer within 2h');
    expect(new DeadlineError(90_000).message).toBe('no answer within 90s');
    expect(new DeadlineError(1500).code).toBe('ERR_DEADLINE');
  });
});

describe('a response larger than the cap (64 MB)', () => {
  let server: Server;
  let url = '';
  const hits: string[] = [];
  beforeAll(async () => {
    // A body that never ends, 1 MB at a time, until the client hangs up.
    const chunk = Buffer.alloc(1 << 20, 0x61);
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    url = await listen(server);
  });
  afterAll(() => close(server));
  afterEach(() => void hits.splice(0));

  it('is fetched once and thrown as ResponseTooLargeError (not transient), not retried', async () => {
    const client = new AdClient({ baseUrl: url, limits: 'off', stateDir: tempDir('powprime-deadline-'), backoffMs: 0 });
    const err = await client.random().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as ResponseTooLargeError).code).toBe('ERR_RESPONSE_TOO_LARGE');
    expect((err as ResponseTooLargeError).transient).toBe(false);
    expect((err as ResponseTooLargeError).limit).toBe(64 * 1024 * 1024);
    expect((err as Error).message).toBe(`GET /api/random: response larger than ${64 * 1024 * 1024} bytes`);
    expect(hits).toEqual(['/api/random']);
  });

  it('the CLI: one line, exit 1, one request', async () => {
    const r = await runCli('ads', 'random', '--base-url', url, '--state-dir', tempDir('powprime-deadline-'), '--no-limits');
    expect(r.status).toBe(1);
    oneLine(r.stderr);
    expect(r.stderr).toMatch(/^powprime: GET \/api\/random: response larger than 67108864 bytes$/m);
    expect(hits).toEqual(['/api/random']);
  });
});
