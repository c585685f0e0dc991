// An outage is not a rate limit: a service that refuses connections, a host
// that does not exist, a TLS handshake that fails or a connection dropped
// before any answer gives one NetworkError line naming the cause, exit 1, and
// a refused call is not left on the limiter's record (it never reached the
// service). Bans are capped at a day, whatever the Retry-After or the file.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../src/clients/clock.ts';
import { banUntil, DEFAULT_BAN_MS } from '../src/clients/http/retry-after.ts';
import { runCli } from './helpers/cli.ts';
import { hasCommand } from './helpers/oracles.ts';
import { tempDir } from './helpers/tmp.ts';

const limitsFile = (dir: string, host: string): string => path.join(dir, `limits-${host.replace(/[^a-zA-Z0-9.-]/g, '_')}.json`);
const oneLine = (stderr: string): void => {
  expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
  expect(stderr).toMatch(/^powprime: /);
  expect(stderr).not.toMatch(/waits \d+ s|limit of/);
};

describe('an unreachable service', () => {
  it('question stats --base-url http://127.0.0.1:1: one line naming ECONNREFUSED, exit 1, nothing spent', async () => {
    const dir = tempDir('powprime-outage-');
    const r = await runCli('question', 'stats', '--base-url', 'http://127.0.0.1:1', '--state-dir', dir);
    expect(r.status).toBe(1);
    oneLine(r.stderr);
    expect(r.stderr).toMatch(/stats: cannot reach 127\.0\.0\.1:1: connection refused \(ECONNREFUSED\)$/m);
    const saved = JSON.parse(readFileSync(limitsFile(dir, '127.0.0.1:1'), 'utf8')) as { calls: Record<string, number[]> };
    expect(saved.calls.stats ?? []).toEqual([]);
    // So the next command goes out at once too, rather than waiting out a minute it never used.
    const again = await runCli('question', 'stats', '--base-url', 'http://127.0.0.1:1', '--state-dir', dir, '--max-wait', '0');
    expect(again.stderr).toMatch(/ECONNREFUSED/);
  });

  it('a host that does not exist (the .invalid domain never resolves)', async () => {
    const r = await runCli('ads', 'random', '--base-url', 'http://powprime-outage.invalid', '--state-dir', tempDir('powprime-outage-'));
    expect(r.status).toBe(1);
    oneLine(r.stderr);
    expect(r.stderr).toMatch(/cannot reach powprime-outage\.invalid: .*\((ENOTFOUND|EAI_AGAIN)\)$/m);
  });

  describe.runIf(hasCommand('openssl', ['version']))('a TLS handshake that fails (a self-signed certificate)', () => {
    let tls: ReturnType<typeof createTlsServer>;
    let port = 0;
    beforeAll(async () => {
      const dir = tempDir('powprime-outage-');
      const key = path.join(dir, 'key.pem');
      const cert = path.join(dir, 'cert.pem');
      const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
      expect(made.status).toBe(0);
      tls = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => res.end('{}'));
      await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
      port = (tls.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((r) => tls.close(() => r())));

    it('one line naming the TLS failure, nothing spent', async () => {
      const dir = tempDir('powprime-outage-');
      const r = await runCli('question', 'stats', '--base-url', `https://127.0.0.1:${port}`, '--state-dir', dir);
      expect(r.status).toBe(1);
      oneLine(r.stderr);
      expect(r.stderr).toMatch(/cannot reach 127\.0\.0\.1:\d+: TLS handshake failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/);
      const saved = JSON.parse(readFileSync(limitsFile(dir, `127.0.0.1:${port}`), 'utf8')) as { calls: Record<string, number[]> };
      expect(saved.calls.stats ?? []).toEqual([]);
    });
  });

  describe('a connection dropped before any answer', () => {
    let server: Server;
    let url = '';
    const hits: string[] = [];
    beforeAll(async () => {
      server = createServer((req) => {
        hits.push(req.url ?? '');
        req.socket.destroy();
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('is a network error (retried, as the request may have arrived), not a truncated response; one line', async () => {
      const r = await runCli('question', 'stats', '--base-url', url, '--state-dir', tempDir('powprime-outage-'), '--no-limits');
      expect(r.status).toBe(1);
      oneLine(r.stderr);
      expect(r.stderr).not.toMatch(/truncated/);
      expect(r.stderr).toMatch(/^powprime: GET \/gpt\/api\/stats: (other side closed|socket hang up|.*ECONNRESET)/m);
      // One try for a session cookie (the spec wants it on every read), then stats three times.
      expect(hits).toEqual(['/gpt/api/config', '/gpt/api/stats', '/gpt/api/stats', '/gpt/api/stats']);
    });
  });
});

describe('bans are capped at a day', () => {
  const now = Date.UTC(2026, 0, 1);
  it('banUntil: absurd seconds and far dates end a day from now; a bad value is the default ban', () => {
    expect(banUntil('10000000000000', now)).toBe(now + DAY);
    expect(banUntil('3000', now)).toBe(now + 3_000_000);
    expect(banUntil('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(now + DAY);
    expect(banUntil('Thu, 01 Jan 2026 00:30:00 GMT', now)).toBe(now + HOUR / 2);
    expect(banUntil('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(now);
    expect(banUntil('soon', now)).toBe(now + DEFAULT_BAN_MS);
    expect(banUntil(undefined, now)).toBe(now + DEFAULT_BAN_MS);
  });

  describe('against a host answering Retry-After: 10000000000000', () => {
    let server: Server;
    let url = '';
    beforeAll(async () => {
      server = createServer((_req, res) => res.writeHead(429, { 'retry-after': '10000000000000', 'content-type': 'application/json' }).end('{"error":"rate limited"}'));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('the ban saved ends within a day, and is said with a real date', async () => {
      const dir = tempDir('powprime-bans-');
      const before = Date.now();
      const r = await runCli('question', 'stats', '--base-url', url, '--state-dir', dir, '--max-wait', '5');
      expect(r.status).toBe(1);
      expect(r.stderr).not.toMatch(/Invalid time value/);
      oneLineBan(r.stderr);
      const saved = JSON.parse(readFileSync(limitsFile(dir, new URL(url).host), 'utf8')) as { bannedUntil: number };
      expect(saved.bannedUntil).toBeGreaterThan(before + DAY - 60_000);
      expect(saved.bannedUntil).toBeLessThanOrEqual(Date.now() + DAY);
    });
  });

  it('an absurd ban already saved is clamped on load; a limits file of the wrong shape is set aside', async () => {
    const dir = tempDir('powprime-bans-');
    mkdirSync(dir, { recursive: true });
    const host = '127.0.0.1:9';
    writeFileSync(limitsFile(dir, host), JSON.stringify({ calls: {}, bannedUntil: 1e17, bannedBy: 'GET /gpt/api/stats' }));
    const r = await runCli('question', 'stats', '--base-url', `http://${host}`, '--state-dir', dir, '--max-wait', '5');
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(/Invalid time value/);
    oneLineBan(r.stderr);

    writeFileSync(limitsFile(dir, host), JSON.stringify({ calls: 'x', bannedUntil: 0 }));
    const shaped = await runCli('question', 'stats', '--base-url', `http://${host}`, '--state-dir', dir);
    expect(shaped.stderr).toMatch(/^powprime: warning: .*limits-127\.0\.0\.1_9\.json has no calls object; moved to .*\.corrupt-\d+, starting afresh$/m);
    expect(readdirSync(dir).some((f) => /^limits-127\.0\.0\.1_9\.json\.corrupt-\d+$/.test(f))).toBe(true);
    // Then it went out at once (nothing listens on port 9): the outage line, not a ban.
    expect(shaped.stderr).toMatch(/ECONNREFUSED/);
    expect(existsSync(limitsFile(dir, host))).toBe(true);
  });
});

/** One line: the wait refused, naming a ban that ends within a day. */
function oneLineBan(stderr: string): void {
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  const m = /banned until (\S+) after a 429/.exec(stderr);
  expect(m, stderr).not.toBeNull();
  const until = Date.parse(m![1]!);
  expect(until).toBeGreaterThan(Date.now());
  expect(until).toBeLessThanOrEqual(Date.now() + DAY);
}
