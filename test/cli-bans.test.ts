// Bans that say what they are: a host that answers 429 with a Retry-After of
// a month. The CLI says in one stderr line (piped, not only on a terminal)
// which route earned the ban and until when, --max-wait turns the wait into
// exit 1 at once, and a wait longer than setTimeout's range never busy-spins.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

let server: Server;
let url = '';
let requests = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3000000' });
    res.end(JSON.stringify({ error: 'You are rate limited; please retry later.' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a 429 with Retry-After: 3000000 (35 days)', () => {
  const state = tempDir('powprime-bans-');

  it('--max-wait 5: exit 1 at once, one line naming the ban and the route that earned it', async () => {
    const r = await runCli('question', 'stats', '--base-url', url, '--state-dir', state, '--max-wait', '5');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^powprime: stats would have to wait: the host is banned until 20\d\d-.* after a 429 on .*\/(stats|config), longer than the 5 s allowed$/m);
    expect(r.stderr).not.toMatch(/TimeoutOverflowWarning/);
    expect(requests).toBe(1);
  });

  it('the saved ban holds on the next run, without another request', async () => {
    const r = await runCli('question', 'stats', '--base-url', url, '--state-dir', state, '--max-wait', '5');
    expect(r.status).toBe(1);
    expect(requests).toBe(1);
  });

  it('without --max-wait, piped: one line when the wait starts, then a quiet, idle wait (no spin)', async () => {
    const child = spawn(process.execPath, [...CLI_ENTRY, 'question', 'stats', '--base-url', url, '--state-dir', state], { stdio: 'pipe' });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise((r) => setTimeout(r, 3000));
    const cpu = process.platform === 'linux' ? await cpuSeconds(child.pid!) : 0;
    child.kill('SIGINT');
    await new Promise((r) => child.on('exit', r));
    expect(stderr).toMatch(/^powprime: stats waits \d+ s: the host is banned until .* after a 429 on .*\/(stats|config)$/m);
    expect(stderr).not.toMatch(/TimeoutOverflowWarning/);
    // A busy-spinning wait burns a core; start-up costs well under this.
    expect(cpu).toBeLessThan(2.5);
  });
});

/** User + system CPU seconds of a process, from /proc. */
async function cpuSeconds(pid: number): Promise<number> {
  const { readFileSync } = await import('node:fs');
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
