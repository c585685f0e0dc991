// One exit-code convention for every command: 0 ok, 1 failed or found nothing,
// 2 bad usage or input (unusable paths included), 128 + signal interrupted
// (130 for Ctrl-C; see cli-signals.test.ts); every
// error is one line starting "powprime:".
import { spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { hasNative } from './helpers/backends.ts';
import { native } from '../src/native.ts';
import { CLI_ENTRY, runCliSync as cli } from './helpers/cli.ts';
import { killAll, startCli } from './helpers/processes.ts';
import { tempDir } from './helpers/tmp.ts';

afterEach(killAll);

const dir = tempDir('powprime-exit-');
const aFile = path.join(dir, 'a-file');
writeFileSync(aFile, 'x');
const binaryFile = path.join(dir, 'binary');
writeFileSync(binaryFile, Buffer.from([0x30, 0x82, 0x01, 0x08, 0xff, 0xfe, 0x0a, 0x02, 0x82]));
const nulFile = path.join(dir, 'nul');
writeFileSync(nulFile, 'a fine prompt\r\nand\u0000another\n');
const crFile = path.join(dir, 'cr');
writeFileSync(crFile, 'first prompt\rsecond prompt\r');

describe('unusable paths are bad input (exit 2, one line)', () => {
  it.each([
    ['--out in a missing folder', ['search', '--bits', '64', '--count', '1', '--out', path.join(dir, 'missing', 'x.jsonl')], /--out .*: its folder .*missing does not exist$/m],
    ['--out a directory', ['search', '--bits', '64', '--count', '1', '--out', dir], /is a directory/],
    ['--out under a file', ['search', '--bits', '64', '--count', '1', '--out', path.join(aFile, 'x.jsonl')], /--out .*: its folder .*a-file is not a directory$/m],
    ['--prompts missing', ['question', 'run', '--prompts', path.join(dir, 'nope.txt'), '--base-url', 'http://127.0.0.1:9'], /^powprime: --prompts .*nope\.txt: no such file$/m],
    ['--prompts a directory', ['question', 'run', '--prompts', dir, '--base-url', 'http://127.0.0.1:9'], /^powprime: --prompts .* is a directory; give a file$/m],
    // A binary file's "lines" would each be posted from the service's few questions a day: nothing is sent (port 9 would refuse anyway).
    ['--prompts a binary file', ['question', 'run', '--prompts', binaryFile, '--base-url', 'http://127.0.0.1:9'], /^powprime: --prompts .*binary is not UTF-8 text \(a binary file\?\)$/m],
    ['--prompts with a NUL', ['question', 'run', '--prompts', nulFile, '--base-url', 'http://127.0.0.1:9'], /^powprime: --prompts .*nul line 2 holds a control character: is it a text file\?$/m],
    [
      '--prompts ended by CR alone',
      ['question', 'run', '--prompts', crFile, '--base-url', 'http://127.0.0.1:9'],
      /^powprime: --prompts .*cr line 1 holds a carriage return inside it: are its lines ended by CR alone\?/m,
    ],
    ['--state-dir a file', ['question', 'stats', '--state-dir', aFile, '--base-url', 'http://127.0.0.1:9'], /^powprime: --state-dir .*a-file is not a folder$/m],
    [
      '--state-dir under a file',
      ['question', 'stats', '--state-dir', path.join(aFile, 'sub'), '--base-url', 'http://127.0.0.1:9'],
      /^powprime: --state-dir .*a-file\/sub lies under a file, not a folder$/m,
    ],
    // The system refuses to make it with ENOENT under a parent that exists: Node's recursive mkdir retried that for ever.
    ['--state-dir under /proc', ['question', 'stats', '--state-dir', '/proc/powprime-none/state', '--base-url', 'http://127.0.0.1:9'], /cannot use \/proc\/powprime-none: no such file/],
  ])('%s', (_what, args, message) => {
    const r = cli(...args);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^powprime: /);
  });
});

describe('service addresses are bad input named as given (exit 2, one line)', () => {
  it.each([
    ['--base-url not a URL', {}, ['question', 'stats', '--base-url', 'not a url'], 'powprime: --base-url must be an absolute http(s) URL (got "not a url")'],
    ['an environment address of another scheme', { POWPRIME_ADS_URL: 'ftp://x' }, ['ads', 'random'], 'powprime: POWPRIME_ADS_URL must be an absolute http(s) URL (got "ftp://x")'],
    // In the flags' words, not the API's (limits: 'off', baseUrl); nothing is sent to the host.
    [
      '--no-limits off this machine',
      {},
      ['ads', 'random', '--base-url', 'http://example.com:41905', '--no-limits'],
      'powprime: --no-limits is for a service on this machine (a loopback --base-url), not example.com:41905',
    ],
    ['an empty --state-dir', {}, ['registry', 'totp', '--base-url', 'http://127.0.0.1:9', '--state-dir', ''], 'powprime: --state-dir must name a folder (got "")'],
  ])('%s', (_what, env, args, line) => {
    const r = cli.withEnv(env)(...args);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toBe(`${line}\n`);
  });
});

describe('environment', () => {
  it('an unknown POWPRIME_BACKEND is one warning line, and the work still runs', () => {
    const r = cli.withEnv({ POWPRIME_BACKEND: 'bogus' })('solve', 'env', '2');
    expect(r.status).toBe(0);
    expect(r.stderr.trim()).toBe('powprime: warning: POWPRIME_BACKEND="bogus" is not one of auto, native, wasm, js; ignored');
    // `backend`, which says what runs here, says it too.
    const shown = cli.withEnv({ POWPRIME_BACKEND: 'bogus' })('backend');
    expect(shown.status).toBe(0);
    expect(shown.stderr.trim()).toBe('powprime: warning: POWPRIME_BACKEND="bogus" is not one of auto, native, wasm, js; ignored');
  });

  it('an unusable POWPRIME_SIEVE_LIMIT is one warning line, and the search still runs', () => {
    const r = cli.withEnv({ POWPRIME_SIEVE_LIMIT: 'abc' })('search', '--bits', '256', '--count', '2', '--seed', '1');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    expect(r.stderr.trim()).toBe('powprime: warning: POWPRIME_SIEVE_LIMIT="abc" is not a whole number from 5; ignored');
  });

  it('POWPRIME_POW_KERNEL puts the named kernel first; one naming no usable kernel is one warning line', () => {
    const forced = cli.withEnv({ POWPRIME_POW_KERNEL: 'scalar' })('backend');
    expect(forced.status).toBe(0);
    expect(forced.stdout).toMatch(/^sha256: scalar \(chosen by POWPRIME_POW_KERNEL; timed at load: scalar /m);
    expect(forced.stderr).toBe('');
    const bogus = cli.withEnv({ POWPRIME_POW_KERNEL: 'bogus' })('solve', 'env', '2');
    expect(bogus.status).toBe(0);
    expect(bogus.stderr.trim()).toMatch(/^powprime: warning: POWPRIME_POW_KERNEL="bogus" is not a PoW kernel usable here \(.*scalar\); ignored$/);
  });

  it('POWPRIME_BACKEND=js is obeyed without a warning', () => {
    const r = cli.withEnv({ POWPRIME_BACKEND: 'js' })('solve', 'env', '2', '--json');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).backend).toBe('js');
    expect(r.stderr).toBe('');
  });
});

describe('standard output that fails', () => {
  it('redirected to a full disk (/dev/full): one line naming ENOSPC, exit 1, no stack trace', () => {
    const r = spawnSync(process.execPath, [...CLI_ENTRY, 'search', '--bits', '128', '--count', '20', '--seed', '3'], {
      encoding: 'utf8',
      stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'],
    });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^powprime: cannot write to standard output: ENOSPC/)]);
  });

  it('dhparam to a full disk says only that (never "written to stdout"), exit 1', () => {
    for (const outform of ['PEM', 'DER']) {
      const r = spawnSync(process.execPath, [...CLI_ENTRY, 'dhparam', '512', '--seed', '1', '--outform', outform], { encoding: 'utf8', stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'] });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^powprime: cannot write to standard output: ENOSPC/)]);
    }
  });

  it('a reader that goes away (`| head -1`) ends the command quietly with exit 0', () => {
    const r = spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" ${CLI_ENTRY.join(' ')} search --bits 128 --count 5000 --seed 3 | head -1`], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\{"prime":"\d+"/);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toBe('');
  });

  // Its next line, an 8192-bit modulus, is minutes off (this seed's first took over 4 core-minutes on
  // a Zen 4, and one thread is all it gets): the failed write would tell only then. The addon's watch
  // of the reader ends it within a second or two.
  it.skipIf(!hasNative)(
    'a reader that goes away while the next line is minutes off ends the command then, not at that line',
    async () => {
      const run = startCli(['moduli', '--bits', '8192', '--count', '1', '--seed', '2', '--threads', '1']);
      await run.waitFor((out) => out.includes('\n'), 'the header line');
      // As `| head -1` does once it has its line.
      run.child.stdout!.destroy();
      const r = await Promise.race([run.exited, sleep(30_000).then(() => null)]);
      expect(r, 'still searching half a minute after its reader left').not.toBeNull();
      expect(r!.status, r!.stderr).toBe(0);
      expect(r!.stderr).toBe('');
    },
    60_000,
  );

  // The addon's check itself, on a real pipe (a FIFO: POLLERR once its reader closes) and a file.
  it.skipIf(!hasNative || process.platform === 'win32')('readerGone: a pipe while read, then with its reader gone; a file never', () => {
    const dir = tempDir('powprime-reader-gone-');
    const fifo = path.join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const file = openSync(path.join(dir, 'file'), 'w');
    try {
      const n = native()!;
      expect(n.readerGone(writer)).toBe(false);
      expect(n.readerGone(file)).toBe(false);
      closeSync(reader);
      expect(n.readerGone(writer)).toBe(true);
      expect(n.readerGone(file)).toBe(false);
      expect(() => n.readerGone(-1)).toThrow(RangeError);
    } finally {
      closeSync(writer);
      closeSync(file);
    }
  });
});
