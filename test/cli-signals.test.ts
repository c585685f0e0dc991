// Every command stops the same way on SIGINT, SIGTERM, SIGHUP and SIGQUIT (real
// processes, real kill): one line `powprime: interrupted (SIG…)`, exit
// 128 + the signal's number, nothing half written, no lock or temporary
// file left behind. The time to stop is checked only against a generous
// liveness bound: a process that keeps running is the failure, not a slow one.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeServices, type FakeServices } from '../src/fake-services/index.ts';
import { pidRunsHere } from '../src/fs/lock-note.ts';
import { CLI_ENTRY } from './helpers/cli.ts';
import { hostStateFile, hostTag } from '../src/clients/http/state-paths.ts';
import { killAll, startCli, type Running } from './helpers/processes.ts';
import { tempDir } from './helpers/tmp.ts';

const SAFE_PRIMES = (JSON.parse(readFileSync(new URL('./vectors/rfc-safe-primes.json', import.meta.url), 'utf8')) as { safe_primes: Record<string, string> }).safe_primes;
type Sig = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'SIGQUIT';
const code = (s: Sig): number => 128 + constants.signals[s];

let fake: FakeServices;
/** Answers every request with a 429 and a Retry-After of an hour: a client then waits. */
let banning: Server;
let banningUrl = '';
beforeAll(async () => {
  fake = await startFakeServices({ question: { unlimited: true, difficulty: 1, answerDelayMs: 3_600_000 } });
  banning = createServer((_req, res) => res.writeHead(429, { 'retry-after': '3600', 'content-type': 'application/json' }).end('{"error":"slow down"}'));
  await new Promise<void>((r) => banning.listen(0, '127.0.0.1', r));
  banningUrl = `http://127.0.0.1:${(banning.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await fake.close();
  await new Promise<void>((r) => banning.close(() => r()));
});
afterEach(killAll);

/** Sends `signal` once `ready` holds (`twice`: again 5 ms later), then returns how the process ended. */
async function stop(p: Running, signal: Sig, ready: (stdout: string, stderr: string) => boolean, what: string, twice = false): Promise<{ status: number | null; stderr: string; stdout: string }> {
  await p.waitFor(ready, what);
  p.child.kill(signal);
  if (twice) setTimeout(() => p.child.kill(signal), 5);
  // A liveness bound, not a speed goal.
  const ended = await Promise.race([p.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000))]);
  if (ended === 'hung') throw new Error(`still running 30 s after ${signal}; stderr: ${p.stderr()}`);
  return ended;
}

/** The interrupted line is the last of stderr and the only one of its kind. */
function expectInterrupted(r: { status: number | null; stderr: string }, signal: Sig, detail?: RegExp): void {
  expect(r.status, r.stderr).toBe(code(signal));
  const lines = r.stderr.split(/\r?\n/).filter(Boolean);
  const marked = lines.filter((l) => l.includes('interrupted'));
  expect(marked, r.stderr).toHaveLength(1);
  expect(lines.at(-1)).toBe(marked[0]);
  expect(marked[0]).toMatch(new RegExp(`^powprime: interrupted \\(${signal}\\)`));
  if (detail) expect(marked[0]).toMatch(detail);
  expect(r.stderr).not.toMatch(/unexpected error|Error:|at .*\.ts:\d+/);
}

const afterMs = (ms: number): (() => boolean) => {
  const t = Date.now() + ms;
  return () => Date.now() >= t;
};

describe('solve', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const)('%s: the pool stops, one line, 128 + signal', async (signal) => {
    const p = startCli(['solve', 'signals', '14', '--threads', '2']);
    expectInterrupted(await stop(p, signal, afterMs(1500), 'the search to run'), signal);
    expect(p.stdout()).toBe('');
  });
});

describe('dhparam', () => {
  it('SIGTERM: no PEM and no temporary file left', async () => {
    const dir = tempDir('powprime-sig-');
    const out = path.join(dir, 'dh.pem');
    // 8192 bits: a size no machine finishes before the signal.
    const p = startCli(['dhparam', '8192', '--out', out, '--seed', '77']);
    expectInterrupted(await stop(p, 'SIGTERM', afterMs(2500), 'the search to run'), 'SIGTERM');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('search', () => {
  it('SIGQUIT (Ctrl-\\) ends it as SIGTERM does: the lock is gone, no core dump', async () => {
    const dir = tempDir('powprime-sig-');
    const out = path.join(dir, 'run.jsonl');
    const p = startCli(['search', '--bits', '1024', '--count', '400', '--seed', '9', '--out', out]);
    const r = await stop(p, 'SIGQUIT', () => readFileSync(out, 'utf8').includes('\n'), 'the first prime on disk');
    expectInterrupted(r, 'SIGQUIT', /: \d+ new primes? kept; rerun the same command to resume$/);
    expect(existsSync(`${out}.lock`)).toBe(false);
    expect(readdirSync(dir)).toEqual(['run.jsonl']);
  });

  it('SIGHUP: every line kept is whole, the lock is gone, the line says how to resume', async () => {
    const dir = tempDir('powprime-sig-');
    const out = path.join(dir, 'run.jsonl');
    const p = startCli(['search', '--bits', '1024', '--count', '400', '--seed', '9', '--out', out]);
    const r = await stop(p, 'SIGHUP', () => readFileSync(out, 'utf8').includes('\n'), 'the first prime on disk');
    expectInterrupted(r, 'SIGHUP', /: \d+ new primes? kept; rerun the same command to resume$/);
    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index: number });
    expect(lines.map((l) => l.index)).toEqual(lines.map((_, i) => i));
    expect(existsSync(`${out}.lock`)).toBe(false);
  });

  it('SIGTERM twice a moment apart (timeout(1) signals the process, then its group) is one stop: the line still says how to resume', async () => {
    const dir = tempDir('powprime-sig-');
    const out = path.join(dir, 'run.jsonl');
    const p = startCli(['search', '--bits', '1024', '--count', '400', '--seed', '9', '--out', out]);
    const r = await stop(p, 'SIGTERM', () => readFileSync(out, 'utf8').includes('\n'), 'the first prime on disk', true);
    expectInterrupted(r, 'SIGTERM', /: \d+ new primes? kept; rerun the same command to resume$/);
  });

  it('SIGTERM before the first prime: exit 143, nothing written', async () => {
    const dir = tempDir('powprime-sig-');
    const out = path.join(dir, 'run.jsonl');
    // 8192 bits: a size no machine finds a prime of before the signal.
    const p = startCli(['search', '--bits', '8192', '--count', '3', '--seed', '9', '--out', out]);
    expectInterrupted(await stop(p, 'SIGTERM', afterMs(2500), 'the search to run'), 'SIGTERM', /: 0 new primes kept/);
    // On a slow machine the signal can come before the file is first opened: absent or empty, nothing is written.
    expect(existsSync(out) ? readFileSync(out, 'utf8') : '').toBe('');
    expect(existsSync(`${out}.lock`)).toBe(false);
  });
});

describe('commands with nothing to tidy leave at once', () => {
  it('check: a native test of a 21701-bit number that cannot be cut short does not hold the exit (SIGINT)', async () => {
    const p = startCli(['check', `0x${((1n << 21701n) - 1n).toString(16)}`]);
    expectInterrupted(await stop(p, 'SIGINT', afterMs(2500), 'the test to run'), 'SIGINT');
    expect(p.stdout()).toBe('');
  });

  it('merge: SIGTERM while verifying, no --out written and no temporary file', async () => {
    const dir = tempDir('powprime-sig-');
    const p8192 = BigInt(SAFE_PRIMES['rfc3526-modp-8192']!);
    const input = path.join(dir, 'in.jsonl');
    writeFileSync(input, Array.from({ length: 24 }, (_, i) => `${JSON.stringify({ prime: p8192.toString(), bits: 8192, seed: '1', index: i, elapsedMs: 0 })}\n`).join(''));
    const out = path.join(dir, 'merged.jsonl');
    const p = startCli(['merge', input, '--out', out]);
    expectInterrupted(await stop(p, 'SIGTERM', afterMs(2000), 'the verification to run'), 'SIGTERM');
    expect(readdirSync(dir)).toEqual(['in.jsonl']);
  });

  it('bench: SIGHUP', async () => {
    const p = startCli(['bench', '--quick', '--suite', 'prime']);
    expectInterrupted(await stop(p, 'SIGHUP', afterMs(2500), 'the bench to run'), 'SIGHUP');
  });
});

describe('service commands', () => {
  it('question ask --wait: the id at once, the waiting line, and the id again in the interrupted line (SIGINT)', async () => {
    const posts = (): number => fake.requests.filter((q) => q === 'POST /gpt/api/query').length;
    const before = posts();
    const p = startCli(['question', 'ask', 'will you wait?', '--wait', '--base-url', fake.url.href, '--state-dir', tempDir('powprime-sig-'), '--no-limits']);
    const r = await stop(p, 'SIGINT', (_o, e) => /waiting for the answer/.test(e), 'the waiting line');
    const id = /^posted question (\S+)$/m.exec(r.stderr)?.[1];
    expect(id, r.stderr).toBeDefined();
    expect(posts()).toBe(before + 1);
    expect(r.stderr).toMatch(new RegExp(`^waiting for the answer .*powprime question answer ${id}`, 'm'));
    expectInterrupted(r, 'SIGINT', new RegExp(`question ${id} is posted; \`powprime question answer ${id}\``));
  });

  it('question run: SIGTERM while waiting for answers keeps the state, releases the state dir, says how to resume', async () => {
    const dir = tempDir('powprime-sig-');
    const prompts = path.join(dir, 'prompts.txt');
    writeFileSync(prompts, 'one\ntwo\n');
    const state = path.join(dir, 'state');
    const p = startCli(['question', 'run', '--prompts', prompts, '--out', path.join(dir, 'a.jsonl'), '--state-dir', state, '--base-url', fake.url.href, '--no-limits', '--first-check', '600']);
    const posted = (): boolean => (JSON.parse(readFileSync(hostStateFile(state, 'pipeline.json', hostTag(fake.url)), 'utf8')) as { awaiting: unknown[] }).awaiting.length === 2;
    const r = await stop(p, 'SIGTERM', posted, 'both prompts posted');
    expectInterrupted(r, 'SIGTERM', /: rerun the same command to resume$/);
    expect(r.stderr).toMatch(/^0 answered \(0 in .*a\.jsonl\), 2 awaiting, 0 queued, 0 dropped \(stopped; rerun to resume\)$/m);
    expect(existsSync(hostStateFile(state, 'pipeline.lock', hostTag(fake.url)))).toBe(false);
  });

  it('registry: SIGHUP during a ban wait', async () => {
    const p = startCli(['registry', 'ranges', '--base-url', banningUrl, '--state-dir', tempDir('powprime-sig-')]);
    expectInterrupted(await stop(p, 'SIGHUP', (_o, e) => /waits \d+ s/.test(e), 'the wait line'), 'SIGHUP');
  });

  it('ads: SIGTERM during a ban wait', async () => {
    const p = startCli(['ads', 'random', '--base-url', banningUrl, '--state-dir', tempDir('powprime-sig-')]);
    expectInterrupted(await stop(p, 'SIGTERM', (_o, e) => /waits \d+ s/.test(e), 'the wait line'), 'SIGTERM');
  });
});

describe('npx going away', () => {
  /**
   * npx's place taken by a plain parent process that starts the command as
   * npm exec does (its environment says so), reports the pid, and is then
   * killed as npx is by a SIGTERM it does not pass on.
   */
  async function orphan(npmCommand: string | undefined, out: string): Promise<number> {
    const env = { ...process.env, npm_command: npmCommand };
    if (npmCommand === undefined) delete env.npm_command;
    const starter = `const c = require('node:child_process').spawn(process.execPath, ${JSON.stringify([...CLI_ENTRY, 'search', '--bits', '1024', '--count', '400', '--seed', '9', '--out', out])}, { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', starter], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let pid = 0;
    try {
      pid = await new Promise<number>((resolve, reject) => {
        parent.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
        parent.once('exit', () => reject(new Error('the starter ended without starting the command')));
      });
      // Working: the lock is taken and a first prime is on disk.
      for (let t = Date.now(); !(existsSync(out) && readFileSync(out, 'utf8').includes('\n')); ) {
        if (Date.now() - t > 60_000) throw new Error('no first prime within a minute');
        await new Promise((r) => setTimeout(r, 100));
      }
    } catch (err) {
      // Nothing left running: the command is nobody's child here once its starter is gone.
      if (pid) process.kill(pid, 'SIGKILL');
      throw err;
    } finally {
      parent.kill('SIGKILL');
    }
    return pid;
  }
  // A zombie (ended, not yet reaped by whoever took the orphan in) is not running.
  const running = pidRunsHere;

  it.skipIf(process.platform === 'win32')('started by npm exec, the command stops as on SIGTERM once its parent is gone: lock released, lines whole', async () => {
    const out = path.join(tempDir('powprime-sig-'), 'npx.jsonl');
    const pid = await orphan('exec', out);
    // A liveness bound, not a speed goal: it looks once a second.
    for (let t = Date.now(); running(pid) || existsSync(`${out}.lock`); ) {
      if (Date.now() - t > 30_000) {
        process.kill(pid, 'SIGKILL');
        throw new Error('still running 30 s after its parent went away');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(readFileSync(out, 'utf8').endsWith('\n')).toBe(true);
  });

  it.skipIf(process.platform === 'win32')('started otherwise (nohup, a shell that exits), it keeps running', async () => {
    const out = path.join(tempDir('powprime-sig-'), 'nohup.jsonl');
    const pid = await orphan(undefined, out);
    try {
      await new Promise((r) => setTimeout(r, 3000)); // three of npx's looks
      expect(running(pid)).toBe(true);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });
});

describe('a state file locked by another process', () => {
  // The keystore's lock is waited for synchronously (up to a minute), when
  // Node runs no signal handler: the wait itself must end at the signal.
  it('registry: SIGTERM while waiting for the keystore, held by a stuck process, ends the wait at once', async () => {
    const keystore = path.join(tempDir('powprime-sig-'), 'keys.json');
    const lockModule = fileURLToPath(new URL('../src/fs/file-lock.ts', import.meta.url));
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { tryLock } from ${JSON.stringify(lockModule)}; if (!tryLock(${JSON.stringify(`${keystore}.lock`)}, 'a test')) process.exit(3); process.stdout.write('held\\n'); setInterval(() => {}, 60_000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
        holder.on('exit', (status) => reject(new Error(`the lock holder exited (${status})`)));
      });
      // note opens the keystore (get, which reads only the registry, opens none).
      const p = startCli(['registry', 'note', SAFE_PRIMES['rfc3526-modp-2048']!, 'a note', '--keystore', keystore, '--base-url', banningUrl]);
      const r = await stop(p, 'SIGTERM', (_o, e) => /waiting for .*keys\.json \(locked by pid \d+\)/.test(e), 'the waiting line');
      expectInterrupted(r, 'SIGTERM');
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('a question being posted when the signal comes', () => {
  let hanging: Server;
  let hangingUrl = '';
  let queries = 0;
  /** When set, the question's POST is answered with this id after 2 s; else never. */
  let answerWith: string | null = null;
  beforeAll(async () => {
    // Hands out a challenge, then answers the question's POST late or never.
    hanging = createServer((req, res) => {
      if (req.url === '/gpt/api/config') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"nonce":"n","difficulty":1}');
      if (req.url !== '/gpt/api/query') return void res.writeHead(404).end();
      queries++;
      const id = answerWith;
      if (id) setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id })), 2000);
    });
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    hanging.closeAllConnections();
    return new Promise<void>((r) => hanging.close(() => r()));
  });

  it('a signal while the question is being posted: the POST is seen through and its id shown', async () => {
    answerWith = 'late-id-1';
    const before = queries;
    const p = startCli(['question', 'ask', 'hello?', '--base-url', hangingUrl, '--state-dir', tempDir('powprime-sig-'), '--no-limits']);
    const r = await stop(p, 'SIGTERM', () => queries === before + 1, 'the POST sent');
    expect(r.stderr).toMatch(/^posted question late-id-1$/m);
    expect(r.stdout).toBe('late-id-1\n');
    expectInterrupted(r, 'SIGTERM');
  });

  it('the first waits for the POST already sent (its id must not be lost); the second leaves at once', async () => {
    answerWith = null;
    const before = queries;
    const p = startCli(['question', 'ask', 'hello?', '--base-url', hangingUrl, '--state-dir', tempDir('powprime-sig-'), '--no-limits']);
    await p.waitFor(() => queries === before + 1, 'the POST sent');
    p.child.kill('SIGINT');
    // Still waiting for the answer to its POST: the first signal does not abandon it.
    await new Promise((r) => setTimeout(r, 1500));
    expect(p.child.exitCode).toBeNull();
    expectInterrupted(await stop(p, 'SIGINT', () => true, 'nothing'), 'SIGINT');
  });
});

const redisUrl = inject('redisUrl');
describe.skipIf(!redisUrl)(`worker${redisUrl ? '' : ' (skipped: redis-server is not installed)'}`, () => {
  it('SIGTERM: the worker stops and says its chunks went back', async () => {
    const p = startCli(['worker', '--queue', redisUrl, '--queue-name', `signals-${process.pid}`]);
    expectInterrupted(await stop(p, 'SIGTERM', afterMs(2500), 'the worker to start'), 'SIGTERM', /worker stopped after 0 chunks; running chunks went back to the queue$/);
  });
});
