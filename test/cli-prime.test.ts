import { spawn, spawnSync } from 'node:child_process';
import { checkPrimeSync } from 'node:crypto';
import { appendFileSync, existsSync, linkSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ENTRY as CLI, runCliSync as cli } from './helpers/cli.ts';
import { killAll, startCli } from './helpers/processes.ts';
import { jsonConventionErrors, jsonValues } from './helpers/json-convention.ts';
import { isSafePrimeByNodeCrypto } from './helpers/number-theory.ts';
import { tempDir } from './helpers/tmp.ts';
import { hasNative } from './helpers/backends.ts';

const tmp = (): string => tempDir('powprime-cli-prime-');
const lines = (file: string): { prime: string; bits: number; seed: string; index: number; elapsedMs: number }[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

const rfc = JSON.parse(readFileSync(new URL('./vectors/rfc-safe-primes.json', import.meta.url), 'utf8')) as { safe_primes: Record<string, string> };

/** The CLI with text on its stdin (a pipe, as in `echo 23 | powprime check`). */
const piped = (input: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync(process.execPath, [...CLI, ...args], { input, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('powprime check', () => {
  it('reports prime and safe per number; 0 and 1 are neither prime nor composite', () => {
    const r = cli('check', '23', '29', '0x2f', '91', '0', '1', '--json');
    expect(r.status).toBe(0);
    // The oracle: node:crypto's checkPrimeSync on n and (n-1)/2.
    const expected = [23n, 29n, 47n, 91n, 0n, 1n].map((n) => {
      const prime = n >= 2n && checkPrimeSync(n);
      return { n: n.toString(), prime, safe: prime && n >= 5n && checkPrimeSync((n - 1n) / 2n), composite: n >= 2n && !prime };
    });
    expect(JSON.parse(r.stdout)).toEqual(expected);
    expect(cli('check', '23', '91', '0', '1').stdout).toBe('23: safe prime\n91: composite\n0: neither prime nor composite\n1: neither prime nor composite\n');
  });

  it('--hex prints hex: an RFC 3526 prime comes back as given, not as 617 decimal digits', () => {
    const p = rfc.safe_primes['rfc3526-modp-2048']!;
    const r = cli('check', '--hex', p, '91');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${p.toLowerCase()}: safe prime\n0x5b: composite\n`);
    expect(JSON.parse(cli('check', '--hex', '--json', '255').stdout)).toEqual([{ n: '0xff', prime: false, safe: false, composite: true }]);
  });

  it('reads numbers from stdin: with no argument when piped, and where - stands', () => {
    expect(piped('23\n', 'check')).toMatchObject({ status: 0, stdout: '23: safe prime\n' });
    expect(piped('91 0x2f\n29', 'check', '5', '-', '7')).toMatchObject({
      status: 0,
      stdout: '5: safe prime\n91: composite\n47: safe prime\n29: prime, not safe\n7: safe prime\n',
    });
    const bad = piped('23 x9\n', 'check');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/stdin number 2 is not a whole number/);
    expect(piped('', 'check')).toMatchObject({ status: 2, stderr: expect.stringMatching(/stdin held no numbers/) });
  });

  it('waits for a slow writer on stdin (a pipe read whole, not in one non-blocking read)', () => {
    // The numbers come after the CLI has started: a read of fd 0 at once would find the pipe empty.
    const cmd = `(sleep 1; echo 23; sleep 0.5; echo 24) | ${[process.execPath, ...CLI].map((a) => `'${a}'`).join(' ')} check`;
    const r = spawnSync('sh', ['-c', cmd], { encoding: 'utf8', timeout: 60_000 });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, '23: safe prime\n24: composite\n', '']);
  });

  it('1e5 is neither read as 10^5 nor as hex: one line asking which', () => {
    const r = cli('check', '1e5');
    expect([r.status, r.stderr]).toEqual([2, 'powprime: n "1e5" is either a power of ten or hexadecimal: write the number in full, or as 0x1e5 for hexadecimal\n']);
  });

  it('--status prints nothing and answers in the exit code (0 prime, 1 not), --safe asks for safe primes', () => {
    expect(cli('check', '--status', '23', '29')).toMatchObject({ status: 0, stdout: '' });
    expect(cli('check', '--status', '23', '91')).toMatchObject({ status: 1, stdout: '' });
    expect(cli('check', '--status', '1')).toMatchObject({ status: 1, stdout: '' });
    expect(cli('check', '--status', '--safe', '23')).toMatchObject({ status: 0, stdout: '' });
    expect(cli('check', '--status', '--safe', '29')).toMatchObject({ status: 1, stdout: '' });
    expect(piped('91', 'check', '--status')).toMatchObject({ status: 1, stdout: '' });
  });

  it.each([
    [['check', '12', 'twelve'], /argument 2.*not a whole number/],
    [['check', '-5'], /must not be negative/],
    [['check', 'ff'], /"ff" looks like hexadecimal: write it as 0xff/],
    [['check', '--safe', '23'], /--safe goes with --status/],
  ])('bad input %j → one line, exit 2', (args, message) => {
    const r = cli(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('powprime search', () => {
  it('indexes that crowd a small range may share a prime, and search says so; a range with room says nothing', () => {
    const crowded = cli('search', '--bits', '16', '--count', '100', '--seed', '1');
    expect(crowded.status, crowded.stderr).toBe(0);
    const primes = crowded.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).prime as string);
    expect(primes).toHaveLength(100);
    // What the warning is about: fewer distinct primes than lines (there are few 16-bit safe primes).
    expect(new Set(primes).size).toBeLessThan(100);
    expect(crowded.stderr).toBe('powprime: warning: 100 indexes crowd the 16-bit range: near indexes may give the same prime (more bits give distinct ones)\n');
    const roomy = cli('search', '--bits', '64', '--count', '20', '--seed', '1');
    expect(roomy.status, roomy.stderr).toBe(0);
    expect(roomy.stderr).toBe('');
  });

  it('prints one JSON line per prime, each safe per node:crypto', () => {
    const r = cli('search', '--bits', '128', '--count', '3', '--seed', '9');
    expect(r.status).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => o.index)).toEqual([0, 1, 2]);
    for (const o of out) {
      expect(Object.keys(o).sort()).toEqual(['bits', 'elapsedMs', 'index', 'prime', 'seed', 'stream']);
      expect(o.stream).toBe(2);
      expect(o.seed).toBe('9');
      expect(isSafePrimeByNodeCrypto(BigInt(o.prime))).toBe(true);
    }
  });

  it('--out keeps one stream version: a version-1 file resumes as version 1, mixing is refused', () => {
    const dir = tmp();
    const lines = (f: string): Record<string, unknown>[] =>
      readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    // Version 1, as every file written before version 2 holds it: no "stream" field.
    const v1 = path.join(dir, 'v1.jsonl');
    expect(cli('search', '--bits', '128', '--count', '2', '--seed', '9', '--stream', '1', '--out', v1).status).toBe(0);
    expect(lines(v1).every((l) => !('stream' in l))).toBe(true);
    expect(cli('search', '--bits', '128', '--count', '4', '--out', v1).status).toBe(0);
    const resumed = lines(v1);
    expect(resumed.map((l) => l.index)).toEqual([0, 1, 2, 3]);
    expect(resumed.every((l) => !('stream' in l))).toBe(true);
    // The same indexes from a fresh version-1 run: the resumed lines continued version 1.
    const fresh = cli('search', '--bits', '128', '--count', '4', '--seed', '9', '--stream', '1')
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(resumed.map((l) => l.prime)).toEqual(fresh.map((l) => l.prime));
    // Version 2 (the default) finds other primes for the same indexes.
    const v2 = path.join(dir, 'v2.jsonl');
    expect(cli('search', '--bits', '128', '--count', '2', '--seed', '9', '--out', v2).status).toBe(0);
    expect(lines(v2).map((l) => l.stream)).toEqual([2, 2]);
    expect(lines(v2)[0]!.prime).not.toBe(resumed[0]!.prime);
    const disagree = cli('search', '--bits', '128', '--count', '3', '--stream', '1', '--out', v2);
    expect(disagree.status).toBe(2);
    expect(disagree.stderr.trim()).toBe(`powprime: --out file was written with stream 2, not 1; use another file`);
    const mixed = path.join(dir, 'mixed.jsonl');
    writeFileSync(mixed, `${readFileSync(v2, 'utf8').split('\n')[0]}\n${readFileSync(v1, 'utf8').split('\n')[1]}\n`);
    const r = cli('search', '--bits', '128', '--count', '3', '--out', mixed);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/line 2 is of stream 1, but line 1 is of stream 2/);
    const m = cli('merge', v1, v2);
    expect(m.status).toBe(2);
    expect(m.stderr).toMatch(/streams are never mixed/);
    expect(cli('search', '--bits', '128', '--count', '1', '--stream', '3').stderr.trim()).toBe('powprime: --stream must be 1 or 2 (got 3)');
  });

  it('--hex prints each prime in hex on stdout: the same primes', () => {
    const dec = cli('search', '--bits', '96', '--count', '2', '--seed', '5')
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const hex = cli('search', '--bits', '96', '--count', '2', '--seed', '5', '--hex')
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(hex.map((o) => o.prime)).toEqual(dec.map((o) => `0x${BigInt(o.prime).toString(16)}`));
    for (const o of hex) expect(o.prime).toMatch(/^0x[0-9a-f]+$/);
  });

  it('--out resumes where the file ends: nothing lost, nothing twice, same primes as one run', () => {
    const dir = tmp();
    const whole = path.join(dir, 'whole.jsonl');
    const parts = path.join(dir, 'parts.jsonl');
    expect(cli('search', '--bits', '96', '--count', '5', '--seed', '77', '--out', whole).status).toBe(0);
    expect(cli('search', '--bits', '96', '--count', '2', '--seed', '77', '--out', parts).status).toBe(0);
    // A crash mid-write leaves a torn last line; the rerun (seed taken from the file) cuts it off.
    appendFileSync(parts, '{"prime":"12');
    const r = cli('search', '--bits', '96', '--count', '5', '--out', parts, '--json');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ out: parts, found: 3, total: 5, seed: '77' });
    expect(lines(parts).map((l) => [l.prime, l.index])).toEqual(lines(whole).map((l) => [l.prime, l.index]));
    // Already complete: nothing more to do, and a torn tail is still cut off.
    const whole5 = readFileSync(parts, 'utf8');
    appendFileSync(parts, '{"prime":"12');
    expect(cli('search', '--bits', '96', '--count', '5', '--out', parts).stdout).toMatch(/^0 new safe primes; 5 in/);
    expect(readFileSync(parts, 'utf8')).toBe(whole5);
  });

  it('the summary counts the file on disk: a file cut short behind the run’s back is said, not papered over', async () => {
    const file = path.join(tmp(), 'cut.jsonl');
    // 1024 bits: 30 primes take many seconds, so the run is still going when the file is cut.
    const run = startCli(['search', '--bits', '1024', '--count', '30', '--seed', '12', '--out', file, '--json']);
    try {
      await run.waitFor(() => existsSync(file) && readFileSync(file, 'utf8').split('\n').length > 3, 'three lines');
      // Another process truncates it, as `> cut.jsonl` in a shell does: the lock binds only powprime.
      writeFileSync(file, '');
      const r = await run.exited;
      expect(r.status, r.stderr).toBe(0);
      const held = readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
      expect(held).toBeLessThan(30);
      expect(JSON.parse(r.stdout)).toMatchObject({ found: 30, total: held });
      expect(r.stderr).toMatch(new RegExp(`warning: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds ${held} lines, not the 30 this run and earlier ones wrote`));
    } finally {
      await killAll();
    }
  });

  // The file itself is locked through the addon, and not on Windows (docs/operations.md).
  it.skipIf(!hasNative || process.platform === 'win32')('one run at a time per file, whatever hard link names it: a second name for the same file is refused while the first runs', async () => {
    const dir = tmp();
    const file = path.join(dir, 'a.jsonl');
    const other = path.join(dir, 'b.jsonl');
    writeFileSync(file, '');
    linkSync(file, other);
    const first = startCli(['search', '--bits', '1024', '--count', '60', '--seed', '32', '--out', file]);
    try {
      await first.waitFor(() => lines(file).length >= 1, 'a first line');
      const second = cli('search', '--bits', '1024', '--count', '60', '--seed', '32', '--out', other);
      expect(second.status).toBe(2);
      expect(second.stderr).toBe(`powprime: --out ${other} is being written by another run through another hard link to the same file; wait for it to end or stop it, or use another file\n`);
      expect(existsSync(`${other}.lock`)).toBe(false); // its own lock let go again
    } finally {
      await killAll();
    }
    // Once the first run is gone, the other name may carry on from its lines.
    const rerun = cli('search', '--bits', '1024', '--count', '60', '--seed', '32', '--out', other);
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(lines(file).map((l) => l.index)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it.skipIf(!hasNative || process.platform === 'win32')('a file the run made itself is locked too: a hard link made to it afterwards does not let a second run in', async () => {
    const dir = tmp();
    const file = path.join(dir, 'new.jsonl');
    const other = path.join(dir, 'linked.jsonl');
    const first = startCli(['search', '--bits', '1024', '--count', '60', '--seed', '33', '--out', file]);
    try {
      await first.waitFor(() => existsSync(file) && lines(file).length >= 1, 'a first line');
      linkSync(file, other);
      const second = cli('search', '--bits', '1024', '--count', '60', '--seed', '33', '--out', other);
      expect(second.status).toBe(2);
      expect(second.stderr).toMatch(/through another hard link to the same file/);
    } finally {
      await killAll();
    }
  });

  it('one run at a time per --out file: a second is refused while the first runs, and takes over after a kill -9', async () => {
    const dir = tmp();
    const file = path.join(dir, 'one.jsonl');
    const args = ['search', '--bits', '1024', '--count', '60', '--seed', '31', '--out', file];
    const first = startCli(args);
    try {
      await first.waitFor(() => existsSync(file) && lines(file).length >= 1, 'a first line');
      const second = cli(...args);
      expect(second.status).toBe(2);
      expect(second.stderr).toBe(`powprime: --out ${file} is being written by another run (pid ${first.child.pid}); wait for it to end or stop it, or use another file\n`);
      await first.kill9();
      expect(existsSync(`${file}.lock`)).toBe(true); // left behind by the killed run
      const rerun = cli(...args);
      expect(rerun.status).toBe(0);
      expect(existsSync(`${file}.lock`)).toBe(false);
      expect(lines(file).map((l) => l.index)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    } finally {
      await killAll();
    }
  });

  it('refuses to mix runs in one file', () => {
    const file = path.join(tmp(), 'run.jsonl');
    expect(cli('search', '--bits', '64', '--count', '1', '--seed', '1', '--out', file).status).toBe(0);
    const other = cli('search', '--bits', '64', '--count', '2', '--seed', '2', '--out', file);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/seed 1, not 2/);
    expect(cli('search', '--bits', '65', '--count', '2', '--out', file).stderr).toMatch(/64-bit primes, not 65-bit/);
    writeFileSync(file, 'not json\n');
    expect(cli('search', '--bits', '64', '--count', '2', '--out', file).stderr).toMatch(/line 1 is not JSON/);
  });

  it('Ctrl-C stops cleanly, keeps what was found, and a rerun completes the same run', async () => {
    const dir = tmp();
    const file = path.join(dir, 'int.jsonl');
    const child = spawn(process.execPath, [...CLI, 'search', '--bits', '1024', '--count', '40', '--seed', '5', '--out', file], { stdio: 'pipe' });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Wait for the first prime on disk, then interrupt.
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        try {
          if (readFileSync(file, 'utf8').includes('\n')) {
            clearInterval(timer);
            child.kill('SIGINT');
            resolve();
          }
        } catch {
          /* not created yet */
        }
      }, 50);
      child.on('exit', () => {
        clearInterval(timer);
        reject(new Error(`search exited before its first prime: ${stderr}`));
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(130);
    expect(stderr).toMatch(/^powprime: interrupted \(SIGINT\): \d+ new primes? kept; rerun the same command to resume$/m);
    const kept = lines(file);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(40);
    expect(kept.map((l) => l.index)).toEqual(kept.map((_, i) => i));
    const resumed = cli('search', '--bits', '1024', '--count', String(kept.length + 2), '--seed', '5', '--out', file);
    expect(resumed.status).toBe(0);
    expect(lines(file).map((l) => l.index)).toEqual(Array.from({ length: kept.length + 2 }, (_, i) => i));
  });

  it('Ctrl-C in a 4096-bit search ends the process, not only the output (no run keeps the cores busy)', async () => {
    const file = path.join(tmp(), 'big.jsonl');
    const child = spawn(process.execPath, [...CLI, 'search', '--bits', '4096', '--count', '30', '--seed', '8', '--out', file], { stdio: 'pipe' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    await new Promise((r) => setTimeout(r, 4000));
    child.kill('SIGINT');
    // A liveness bound, not a speed goal: before the fix the pool ran for minutes after the message.
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000))]);
    if (code === 'hung') child.kill('SIGKILL');
    expect(code).toBe(130);
  }, 60_000);

  it.each([
    [['search', '--bits', '15', '--count', '1'], /--bits must be an integer from 16 to 16384/],
    [['search', '--bits', '16385', '--count', '1'], /--bits/],
    [['search', '--bits', '64', '--count', '0'], /--count/],
    [['search', '--bits', '64', '--count', '1', '--seed', 'abc'], /--seed is not a whole number/],
    [['search', '--bits', '64', '--count', '1', '--seed', '-3'], /--seed must be from 0/],
    // A misspelled flag is named first, with the suggestion on the same line, before any required flag is missed.
    [['search', '--bit', '512', '--count', '1'], /^powprime: unknown option '--bit' \(did you mean --bits\?\)\n$/],
    [['search', '--bits', '512', '--coutn', '1'], /^powprime: unknown option '--coutn' \(did you mean --count\?\)\n$/],
    [['serch', '--bits', '512'], /^powprime: unknown command 'serch' \(did you mean search\?\)\n$/],
    [['-v'], /^powprime: unknown option '-v' \(did you mean -V, --version\?\)\n$/],
    // A flag of --register or --queue without it: refused, not dropped without a word.
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--base-url', 'http://127.0.0.1:9'], /^powprime: --base-url goes with --register\n$/],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--keystore', 'k.json'], /^powprime: --keystore goes with --register\n$/],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--state-dir', '.'], /--state-dir goes with --register/],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--max-wait', '5'], /--max-wait goes with --register/],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--no-limits'], /--no-limits goes with --register/],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--queue-name', 'mine'], /--queue-name goes with --queue/],
    // Workers run the chunks with their own settings: --threads and --backend would not reach them.
    [
      ['search', '--bits', '64', '--count', '1', '--seed', '1', '--queue', 'redis://127.0.0.1:9', '--threads', '2'],
      /^powprime: --threads and --backend do not go with --queue: give them to each powprime worker\n$/,
    ],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--queue', 'redis://127.0.0.1:9', '--backend', 'js'], /^powprime: --threads and --backend do not go with --queue/],
    // Output flags that would change nothing.
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--out', 'never-made.jsonl', '--hex'], /^powprime: --hex does not go with --out: /],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--out', 'never-made.jsonl', '--format', 'number'], /^powprime: --format does not go with --out: /],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--format', 'hex', '--hex'], /^powprime: --hex goes with JSON lines; --format hex prints the bare prime\n$/],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--format', 'decimal'], /^powprime: --format must be one of 'json', 'number', 'hex'/],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--format', 'number', '--json'], /^powprime: --json goes with JSON lines or --out; --format number prints the bare prime\n$/],
    [['check', '--status', '--json', '23', '9'], /^powprime: --json does not go with --status, which prints nothing: its answer is the exit code\n$/],
    [['search', '--count', '1', '--seed', '1'], /^powprime: --bits is required \(or an --out file whose primes give it\)\n$/],
  ])('bad input %j → one line, exit 2', (args, message) => {
    const r = cli(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a random seed is said on stderr with bare primes, even into a log: they carry none, and the run could not be made again', () => {
    const r = cli('search', '--bits', '64', '--count', '1', '--format', 'number');
    expect(r.status).toBe(0);
    const seed = /^seed (\d+)\n$/.exec(r.stderr)?.[1];
    expect(seed).toBeDefined();
    // The seed said is the run's: the same seed gives the same prime.
    expect(cli('search', '--bits', '64', '--count', '1', '--format', 'number', '--seed', seed!).stdout).toBe(r.stdout);
    // JSON lines carry their seed, and -q keeps stderr quiet.
    expect(cli('search', '--bits', '64', '--count', '1').stderr).toBe('');
    expect(cli('-q', 'search', '--bits', '64', '--count', '1', '--format', 'hex').stderr).toBe('');
  });

  it('--format number and hex print the bare primes, one per line, as openssl prime -generate does', () => {
    const json = cli('search', '--bits', '96', '--count', '3', '--seed', '5');
    const number = cli('search', '--bits', '96', '--count', '3', '--seed', '5', '--format', 'number');
    const hex = cli('search', '--bits', '96', '--count', '3', '--seed', '5', '--format', 'hex');
    expect([number.status, hex.status]).toEqual([0, 0]);
    const primes = json.stdout
      .trim()
      .split('\n')
      .map((l) => BigInt((JSON.parse(l) as { prime: string }).prime));
    expect(number.stdout).toBe(primes.map((p) => `${p}\n`).join(''));
    expect(hex.stdout).toBe(primes.map((p) => `0x${p.toString(16)}\n`).join(''));
    // The oracle: each is a 96-bit safe prime by node:crypto.
    for (const p of primes) expect(p.toString(2).length === 96 && isSafePrimeByNodeCrypto(p)).toBe(true);
  });

  it('--bits is taken from an --out file that has primes, as --seed is; an empty file cannot give it', () => {
    const dir = tmp();
    const out = path.join(dir, 'p.jsonl');
    expect(cli('search', '--bits', '96', '--count', '2', '--seed', '8', '--out', out).status).toBe(0);
    const r = cli('search', '--count', '3', '--out', out, '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ found: 1, total: 3, seed: '8' });
    expect(lines(out).map((l) => l.bits)).toEqual([96, 96, 96]);
    const empty = path.join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const e = cli('search', '--count', '1', '--out', empty);
    expect(e.status).toBe(2);
    expect(e.stderr).toBe(`powprime: --bits is required: --out file ${empty} has no primes to take it from\n`);
  });

  it('--json without --out is taken: the primes are JSON lines either way', () => {
    const plain = cli('search', '--bits', '64', '--count', '2', '--seed', '1');
    const json = cli('search', '--bits', '64', '--count', '2', '--seed', '1', '--json');
    expect(json.status, json.stderr).toBe(0);
    const primes = (out: string): string[] =>
      out
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { prime: string }).prime);
    expect(primes(json.stdout)).toHaveLength(2);
    expect(primes(json.stdout)).toEqual(primes(plain.stdout));
  });
});

describe('JSON and progress of the prime commands', () => {
  it('solve, check, search, merge and dhparam --json follow the JSON convention of docs/cli.md', () => {
    const dir = tempDir('powprime-json-');
    const a = path.join(dir, 'a.jsonl');
    const b = path.join(dir, 'b.jsonl');
    const runs: [string, string[]][] = [
      ['solve', ['solve', 'json-walk', '3', '--json']],
      ['check', ['check', '23', '0x17', '91', '1', '--json']],
      ['search', ['search', '--bits', '128', '--count', '2', '--seed', '11']],
      ['search --out', ['search', '--bits', '128', '--count', '2', '--seed', '11', '--out', a, '--json']],
      ['search --out (shard)', ['search', '--bits', '128', '--count', '2', '--seed', '11', '--out', b, '--json']],
      ['merge', ['merge', a, b, '--out', path.join(dir, 'm.jsonl'), '--json']],
      ['dhparam', ['dhparam', '512', '--seed', '3', '--json']],
      ['dhparam --out', ['dhparam', '512', '--seed', '3', '--out', path.join(dir, 'dh.pem'), '--json']],
    ];
    for (const [what, args] of runs) {
      const r = cli(...args);
      expect(r.status, `${what}: ${r.stderr}`).toBe(0);
      for (const v of jsonValues(r.stdout)) expect(jsonConventionErrors(v), what).toEqual([]);
    }
    for (const file of [a, path.join(dir, 'm.jsonl')]) for (const v of jsonValues(readFileSync(file, 'utf8'))) expect(jsonConventionErrors(v), file).toEqual([]);
  });

  it('--progress=json: one JSON object per tick on stderr, integers where integral; piped without it, nothing', () => {
    const r = cli('search', '--bits', '128', '--count', '3', '--seed', '9', '--progress=json');
    expect(r.status, r.stderr).toBe(0);
    const ticks = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(ticks.map((t) => t.done)).toEqual([1, 2, 3]);
    for (const t of ticks) {
      expect(t).toMatchObject({ event: 'progress', total: 3 });
      expect(Number.isInteger(t.etaMs)).toBe(true);
      expect(typeof t.rate).toBe('number');
    }
    // The same primes on stdout as without progress.
    const primes = (stdout: string): string[] => jsonValues(stdout).map((l) => (l as { prime: string }).prime);
    expect(primes(r.stdout)).toEqual(primes(cli('search', '--bits', '128', '--count', '3', '--seed', '9').stdout));
    // Piped and not asked for: stderr stays empty.
    expect(cli('search', '--bits', '128', '--count', '1', '--seed', '9').stderr).toBe('');
    // Before the command name too (a global option).
    const before = cli('--progress', 'json', 'search', '--bits', '128', '--count', '1', '--seed', '9');
    expect(JSON.parse(before.stderr.trim())).toMatchObject({ event: 'progress', done: 1, total: 1 });
    const bad = cli('search', '--bits', '128', '--count', '1', '--progress=xml');
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--progress=bar draws the bar even when piped, as plain lines without terminal control codes', () => {
    const r = cli('search', '--bits', '128', '--count', '3', '--seed', '9', '--progress=bar');
    expect(r.status, r.stderr).toBe(0);
    const bars = r.stderr.split('\n');
    expect(bars.pop()).toBe('');
    expect(bars.length).toBeGreaterThanOrEqual(2);
    for (const l of bars) expect(l).toMatch(/^safe primes \S+ \d\/3 \| /);
    expect(bars.at(-1)).toMatch(/ 3\/3 \| /);
    expect(r.stderr).not.toContain('\x1b');
    // stdout holds the primes alone, as without the bar.
    const primes = (stdout: string): string[] => jsonValues(stdout).map((l) => (l as { prime: string }).prime);
    expect(primes(r.stdout)).toEqual(primes(cli('search', '--bits', '128', '--count', '3', '--seed', '9').stdout));
  });

  it('--quiet: no informational lines (dhparam names its file otherwise); an error is still one line', () => {
    const dir = tempDir('powprime-quiet-');
    const loud = cli('dhparam', '512', '--seed', '3', '--out', path.join(dir, 'a.pem'));
    expect(loud.stderr).toMatch(/written to .*a\.pem/);
    const quiet = cli('--quiet', 'dhparam', '512', '--seed', '3', '--out', path.join(dir, 'b.pem'));
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(readFileSync(path.join(dir, 'b.pem'), 'utf8')).toBe(readFileSync(path.join(dir, 'a.pem'), 'utf8'));
    const err = cli('dhparam', '100', '--quiet');
    expect(err.status).toBe(2);
    expect(err.stderr).toMatch(/^powprime: [^\n]+\n$/);
    // --quiet drops the progress: asked for beside it, the contradiction is refused, before or after the command.
    for (const args of [
      ['-q', '--progress=json', 'search', '--bits', '64', '--count', '1'],
      ['search', '--bits', '64', '--count', '1', '--progress', 'bar', '--quiet'],
    ]) {
      const both = cli(...args);
      expect(both.status, args.join(' ')).toBe(2);
      expect(both.stdout).toBe('');
      expect(both.stderr).toMatch(/^powprime: --quiet and --progress=(json|bar) do not go together: --quiet drops the progress\n$/);
    }
    expect(cli('-q', '--progress=none', 'search', '--bits', '64', '--count', '1', '--seed', '1')).toMatchObject({ status: 0, stderr: '' });
  });
});

// A real terminal (a pseudo-terminal from util-linux `script`), where the bar
// on stderr and the primes on stdout share one screen.
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

describe.runIf(hasScript)('search on a terminal', () => {
  it('clears the bar before each prime, with line wrap on, and saves the cursor beneath it', () => {
    const command = [process.execPath, ...CLI, 'search', '--bits', '512', '--count', '3', '--seed', '7'].map((a) => `'${a}'`).join(' ');
    const r = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], { encoding: 'utf8', timeout: 120_000, cwd: process.cwd(), env: { ...process.env, COLUMNS: '80', LINES: '24' } });
    expect(r.status, r.stderr).toBe(0);
    const screen = r.stdout;
    expect(screen).toContain('safe primes');
    // The pty turns each \n into \r\n. Every prime line starts on a cleared line with wrapping
    // on (not glued after the bar's text), and the cursor is saved where the bar is drawn next.
    const primes = [...screen.matchAll(/(.{0,12})\{"prime":"\d+"[^\n]*\}\r\n(.{0,2})/gs)];
    expect(primes.length).toBe(3);
    for (const [, before = '', after] of primes) {
      expect(before.endsWith('\r\x1b[2K\x1b[?7h'), JSON.stringify(before)).toBe(true);
      expect(after).toBe('\x1b7');
    }
  });
});
