// A value out of bounds reads the same from the API and from the command
// line: the CLI hands the number to the API (or runs the API's own check
// before it touches files or services) and shows the API's message with the
// flag in place of the argument's name. Exit 2, one line.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDhParams, searchSafePrimes, solvePow } from '../src/index.ts';
import { parseBigArg, parseIntArg } from '../src/cli/args.ts';
import { MAX_SEARCH_BITS, MAX_THREADS, MIN_SEARCH_BITS, MIN_THREADS } from '../src/limits.ts';
import { CLI_ENTRY, runCliSync as cli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

/** The API's message for a rejected call. */
async function apiMessage(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
  } catch (err) {
    expect(err).toBeInstanceOf(RangeError);
    return (err as Error).message;
  }
  throw new Error('the API accepted the value');
}

const first = async <T>(g: AsyncGenerator<T>): Promise<T | undefined> => (await g.next()).value;
const dir = tempDir('powprime-limits-');

describe('--threads 0: the API says it, naming --threads', () => {
  const expected = `--threads must be an integer from ${MIN_THREADS} to ${MAX_THREADS} (got 0)`;

  it.each([
    ['solve', ['solve', 'n', '3', '--threads', '0'], () => solvePow({ nonce: 'n', difficulty: 3 }, { threads: 0 })],
    ['dhparam', ['dhparam', '512', '--threads', '0'], () => generateDhParams({ bits: 512, threads: 0 })],
    ['search', ['search', '--bits', '64', '--count', '1', '--threads', '0'], () => first(searchSafePrimes({ bits: 64, count: 1, threads: 0 }))],
  ] as const)('%s', async (_what, args, api) => {
    const fromApi = await apiMessage(api);
    expect(fromApi).toBe(expected.replace('--threads', 'threads'));
    const r = cli(...args);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toBe(`powprime: ${fromApi.replace(/^threads /, '--threads ')}\n`);
    expect(r.stderr).toBe(`powprime: ${expected}\n`);
  });

  it('worker: refused before Redis is reached (nothing listens on port 1)', () => {
    const r = cli('worker', '--queue', 'redis://127.0.0.1:1', '--threads', '0');
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toBe(`powprime: ${expected}\n`);
  });

  it('search: refused before --out is created', () => {
    const out = path.join(dir, 'never.jsonl');
    const r = cli('search', '--bits', '64', '--count', '1', '--threads', '0', '--out', out);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toBe(`powprime: ${expected}\n`);
    expect(existsSync(out)).toBe(false);
  });
});

describe('other flags and arguments', () => {
  it("search --bits out of range: the search API's message, naming --bits", async () => {
    const fromApi = await apiMessage(() => first(searchSafePrimes({ bits: MIN_SEARCH_BITS - 1, count: 1 })));
    expect(fromApi).toBe(`bits must be an integer from ${MIN_SEARCH_BITS} to ${MAX_SEARCH_BITS} (got ${MIN_SEARCH_BITS - 1})`);
    const r = cli('search', '--bits', String(MIN_SEARCH_BITS - 1), '--count', '1');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`powprime: --${fromApi}\n`);
  });

  it('solve --max-attempts 0 and a fractional --threads: the API judges what the CLI converted', () => {
    const zero = cli('solve', 'n', '3', '--max-attempts', '0');
    expect([zero.status, zero.stderr]).toEqual([2, 'powprime: --max-attempts must be a whole number of at least 1 (got 0)\n']);
    const half = cli('solve', 'n', '3', '--threads', '1.5');
    expect([half.status, half.stderr]).toEqual([2, `powprime: --threads must be an integer from ${MIN_THREADS} to ${MAX_THREADS} (got 1.5)\n`]);
  });

  it("a positional argument keeps the API's name: dhparam 511 says bits, as generateDhParams does", async () => {
    const fromApi = await apiMessage(() => generateDhParams({ bits: 511 }));
    const r = cli('dhparam', '511');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`powprime: ${fromApi}\n`);
  });

  it('text that is no number is a usage error naming the flag', () => {
    const r = cli('solve', 'n', '3', '--threads', 'many');
    expect([r.status, r.stderr]).toEqual([2, 'powprime: --threads must be an integer (got "many")\n']);
  });

  it('exponent notation is read exactly: --max-attempts 1e2 is 100, --count 1e23 is refused as typed', () => {
    const big = cli('search', '--bits', '512', '--count', '1e23');
    expect([big.status, big.stderr]).toEqual([2, 'powprime: --count must be an integer of at most 9007199254740991 (got "1e23")\n']);
    // The bound quoted is the one on the value's side.
    const low = cli('search', '--bits', '512', '--count=-1e23');
    expect([low.status, low.stderr]).toEqual([2, 'powprime: --count must be an integer of at least -9007199254740991 (got "-1e23")\n']);
    const lowHuge = cli('search', '--bits', '512', '--count=-1e5000');
    expect([lowHuge.status, lowHuge.stderr]).toEqual([2, 'powprime: --count must be an integer of at least -9007199254740991 (got "-1e5000")\n']);
    const threads = cli('solve', 'n', '3', '--threads', '1E3');
    expect([threads.status, threads.stderr]).toEqual([2, `powprime: --threads must be an integer from ${MIN_THREADS} to ${MAX_THREADS} (got 1000)\n`]);
    const frac = cli('solve', 'n', '3', '--threads', '1e-1');
    expect([frac.status, frac.stderr]).toEqual([2, 'powprime: --threads must be an integer (got "1e-1")\n']);
    // A fraction a number would round to a whole one is refused as typed, not judged as 1.
    const near = cli('solve', 'n', '3', '--threads', '1.00000000000000001');
    expect([near.status, near.stderr]).toEqual([2, 'powprime: --threads must be an integer (got "1.00000000000000001")\n']);
    const huge = cli('solve', 'n', '3', '--max-attempts', '1e99999');
    expect([huge.status, huge.stderr]).toEqual([2, 'powprime: --max-attempts must be a whole number of at most 1001 digits (got "1e99999")\n']);
    const ok = cli('solve', 'abc', '1', '--max-attempts', '1e2', '--threads', '1');
    expect(ok.status).toBe(0);
  });

  it('a nonce of bytes that are not UTF-8 is refused (it would reach us as U+FFFD, and be answered for other bytes)', () => {
    const cmd = `${[process.execPath, ...CLI_ENTRY].map((a) => `'${a}'`).join(' ')} solve "$(printf '\\377\\376')" 3`;
    const r = spawnSync('sh', ['-c', cmd], { encoding: 'utf8', timeout: 60_000 });
    expect([r.status, r.stderr]).toEqual([2, 'powprime: nonce is not UTF-8 text (or holds U+FFFD, which such bytes decode to): give the nonce as UTF-8\n']);
  });

  it('help for a command that does not exist is one line, as the command itself is', () => {
    expect(cli('help', 'nosuch')).toMatchObject({ status: 2, stdout: '', stderr: 'powprime: unknown command "nosuch"; powprime --help lists the commands\n' });
    expect(cli('help', 'check')).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Usage: powprime check/) });
  });

  it('a value is judged by its size, not by its exponent as written', () => {
    expect(parseBigArg('--n', '0.1e1001')).toBe(10n ** 1000n);
    expect(parseBigArg('--n', '100e998')).toBe(10n ** 1000n);
    expect(parseBigArg('--n', '9'.repeat(1001))).toBe(10n ** 1001n - 1n);
    expect(parseBigArg('--n', '-0.00012e1004')).toBe(-(12n * 10n ** 999n));
    expect(() => parseBigArg('--n', '1000e998')).toThrow(/at most 1001 digits/);
    expect(() => parseBigArg('--n', '1e1001')).toThrow(/at most 1001 digits/);
    // A tiny fraction with a large written exponent is a fraction, not a huge number.
    expect(() => parseIntArg('--n', `0.${'0'.repeat(1999)}5e1001`)).toThrow(/must be an integer \(got/);
    expect(parseIntArg('--n', `0.${'0'.repeat(1999)}5e2000`)).toBe(5);
  });

  it('a whole number past 2^53 is refused as typed, not as the number it would round to', () => {
    const out = path.join(dir, 'huge-count.jsonl');
    const r = cli('search', '--bits', '512', '--count', '9007199254740993', '--out', out);
    expect([r.status, r.stderr]).toEqual([2, 'powprime: --count must be an integer of at most 9007199254740991 (got "9007199254740993")\n']);
    expect(existsSync(out)).toBe(false);
    // The largest exact one passes the CLI and is the API's to judge.
    const max = cli('solve', 'n', '3', '--threads', String(Number.MAX_SAFE_INTEGER));
    expect(max.stderr).toBe(`powprime: --threads must be an integer from ${MIN_THREADS} to ${MAX_THREADS} (got ${Number.MAX_SAFE_INTEGER})\n`);
  });
});
