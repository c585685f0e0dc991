// Screening a moduli file in the library (src/moduli/screen.ts): ssh-keygen's
// own type-4 candidates, where the base-2 Fermat pass drops most before the
// full check, kept exactly where node:crypto finds q and p prime and
// ssh-keygen's rule gives a generator; OpenSSH's groups mixed in at another
// size; an even q; progress; and an interrupt.
import { checkPrimeSync, generatePrimeSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { closePool, screenModuli } from '../src/index.ts';
import * as pool from '../src/pool/pool.ts';
import { describeBackends } from './helpers/backends.ts';

const candidates = readFileSync(new URL('./vectors/ssh-keygen-candidates-768.txt', import.meta.url), 'utf8');
const system = readFileSync(new URL('./vectors/openssh-moduli-sample.txt', import.meta.url), 'utf8');

/** ssh-keygen's generator rule, written out here: 2 when p ≡ 11 (mod 24), 5 when p mod 10 is 3 or 7. */
const hasGenerator = (p: bigint): boolean => p % 24n === 11n || p % 10n === 3n || p % 10n === 7n;

/** The candidates' moduli (hex q) that screening must keep, by node:crypto. */
const keptByOracle = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => /^\d/.test(l))
    .map((l) => l.split(' ')[6]!)
    .filter((hex) => {
      const q = BigInt(`0x${hex}`);
      const p = 2n * q + 1n;
      return hasGenerator(p) && checkPrimeSync(q) && checkPrimeSync(p);
    })
    .map((hex) => (2n * BigInt(`0x${hex}`) + 1n).toString(16).toUpperCase());

afterAll(() => closePool());
afterEach(() => vi.restoreAllMocks());

/** The most pool tasks in flight at once while `run` screens: the real runTask, only counted. */
const runTask = pool.runTask;
async function mostInFlight(run: () => Promise<unknown>): Promise<number> {
  let now = 0;
  let most = 0;
  vi.spyOn(pool, 'runTask').mockImplementation(async (worker, task) => {
    most = Math.max(most, ++now);
    try {
      return await runTask(worker, task);
    } finally {
      now--;
    }
  });
  await run();
  return most;
}

describeBackends('screening a moduli file', (backend) => {
  it("keeps exactly ssh-keygen's candidates whose q and p node:crypto finds prime, with a generator", async () => {
    const expected = keptByOracle(candidates);
    // A test that cannot fail is no test: the vector holds groups to keep and many candidates to drop.
    expect(expected.length).toBeGreaterThan(1);
    const phases = new Map<string, number[]>();
    const work = new Map<string, number>();
    const r = await screenModuli(candidates, {
      backend,
      onProgress: ({ phase, done, total, workDone }) => {
        const seen = phases.get(phase) ?? [];
        // Rising, never past its total, and the sieving pass over before the checking one begins.
        expect(done).toBeGreaterThan(seen.at(-2) ?? 0);
        expect(done).toBeLessThanOrEqual(total);
        if (phase === 'sieving') expect(phases.has('checking')).toBe(false);
        phases.set(phase, [...seen, done, total]);
        expect(workDone).toBeGreaterThan(work.get(phase) ?? 0);
        expect(workDone).toBeLessThanOrEqual(1);
        work.set(phase, workDone);
      },
    });
    expect(r.good.map((e) => e.modulus.toString(16).toUpperCase())).toEqual(expected);
    expect(r.bad).toEqual([]);
    expect(r.lines).toBe(500);
    expect(r.dropped).toBe(500 - expected.length);
    // Progress: the Fermat pass counts q and p of every candidate with a generator (the others are dropped unread), the full check each survivor.
    const withGenerator = candidates
      .split('\n')
      .filter((l) => /^\d/.test(l))
      .filter((l) => hasGenerator(2n * BigInt(`0x${l.split(' ')[6]}`) + 1n)).length;
    expect(withGenerator).toBeLessThan(500);
    expect(phases.get('sieving')!.slice(-2)).toEqual([2 * withGenerator, 2 * withGenerator]);
    expect(phases.get('checking')!.slice(-2)).toEqual([expected.length, expected.length]);
    // Even through the sieving pass: a candidate whose q fails has its p counted with it, not all at the pass's end
    // (a batch is at most 16 numbers, each counted at most twice).
    const sieved = phases.get('sieving')!.filter((_, k) => k % 2 === 0);
    expect(Math.max(...sieved.map((d, k) => d - (sieved[k - 1] ?? 0)))).toBeLessThanOrEqual(2 * 16);
    // One size: the work done is the share of numbers done, and each phase ends with all of it.
    expect(work.get('sieving')).toBeCloseTo(1, 12);
    expect(work.get('checking')).toBeCloseTo(1, 12);
  });

  it('weighs work by size cubed: a 2048-bit group is an eighth of a 4096-bit one', async () => {
    const lines = system.split('\n');
    const twoSizes = [lines.find((l) => l.split(' ')[4] === '2047'), lines.find((l) => l.split(' ')[4] === '4095')].join('\n');
    const ticks: [number, number][] = [];
    // One thread: the lines are checked in file order.
    const r = await screenModuli(twoSizes, { backend, threads: 1, onProgress: ({ done, workDone }) => ticks.push([done, workDone]) });
    expect(r.good).toHaveLength(2);
    expect(ticks).toEqual([
      [1, 1 / 9],
      [2, 1],
    ]);
  });

  it("checks OpenSSH's groups of another size in the same file, and drops an even q without a test", async () => {
    const groups = system.split('\n').slice(1, 3);
    const first = candidates.split('\n')[0]!.split(' ');
    // q even, p = 2q + 1 ≡ 3 (mod 10): ssh-keygen's rule gives 5, but q is not prime.
    let q = BigInt(`0x${first[6]}`) + 1n;
    while ((2n * q + 1n) % 10n !== 3n || q & 1n) q++;
    const even = [...first.slice(0, 6), q.toString(16).toUpperCase()].join(' ');
    const r = await screenModuli([...groups, even, ...candidates.split('\n').slice(0, 40)].join('\n'), { backend });
    expect(r.good.slice(0, 2).map((e) => e.modulus)).toEqual(groups.map((l) => BigInt(`0x${l.split(' ')[6]}`)));
    expect(r.good.slice(2).map((e) => e.modulus.toString(16).toUpperCase())).toEqual(keptByOracle(candidates.split('\n').slice(0, 40).join('\n')));
    expect(r.bad).toEqual([]);
    expect(r.dropped).toBe(41 - (r.good.length - 2));
  });

  it("stops when its signal is aborted, in either pass or before, with the signal's reason", async () => {
    const before = new AbortController();
    before.abort(new Error('stop here'));
    await expect(screenModuli(candidates, { backend, signal: before.signal })).rejects.toThrow('stop here');
    for (const when of ['sieving', 'checking'] as const) {
      const stop = new AbortController();
      const seen: string[] = [];
      const run = screenModuli(candidates, {
        backend,
        signal: stop.signal,
        // Sieving: at its first task, the others still to start. Checking: as its last task ends, nothing left to start.
        onProgress: ({ phase, done, total }) => {
          seen.push(phase);
          if (phase === when && (when === 'sieving' || done === total)) stop.abort(new Error(`stopped while ${when}`));
        },
      });
      // Even a stop that comes with the last task of a pass does not let the screening resolve as if finished.
      await expect(run).rejects.toThrow(`stopped while ${when}`);
      if (when === 'sieving') expect(seen).not.toContain('checking');
    }
  });

  it('names a line too wide to check, and screens the others', async () => {
    // p ≡ 11 (mod 24), so the generator rule holds and only the size is wrong.
    let p = (1n << 65537n) - 1n;
    while (p % 24n !== 11n) p -= 2n;
    const huge = ['20261129000000', '2', '6', '100', '65536', '2', p.toString(16).toUpperCase()].join(' ');
    const r = await screenModuli([system.split('\n')[1], huge].join('\n'), { backend });
    expect(r.bad).toEqual([{ lineNo: 2, reason: 'p has 65537 bits; at most 65536 are checked' }]);
    expect(r.good).toHaveLength(1);
  });

  it("names tests and tries past sshd's bounds, and keeps its own tries within them", async () => {
    const fields = system.split('\n')[1]!.split(' ');
    const line = (tests: number, tries: number): string => [fields[0], '2', String(tests), String(tries), ...fields.slice(4)].join(' ');
    const r = await screenModuli([line(38, 100), line(6, 2 ** 30 + 1), line(6, 2 ** 30 - 1)].join('\n'), { backend });
    expect(r.bad).toEqual([
      { lineNo: 1, reason: 'tests 38 is above 0x1f, the most sshd reads' },
      { lineNo: 2, reason: 'tries 1073741825 is above 2^30, the most sshd reads' },
    ]);
    // 2^30 − 1 rounds and ours: said as 2^30, what sshd still reads.
    expect(r.good.map((e) => [e.tests, e.tries])).toEqual([[6, 2 ** 30]]);
  });

  it("takes a candidate at ssh-keygen's least size, as it counts it: p's size, q's plus one", async () => {
    // Safe primes by node:crypto, with a generator by the rule: p of 512 bits (q's size field 510) is kept; of 511 bits, refused.
    const safe = (bits: number): bigint => {
      for (;;) {
        const p = generatePrimeSync(bits, { safe: true, bigint: true });
        if (hasGenerator(p)) return p;
      }
    };
    const candidate = (p: bigint): string => ['20261130000000', '4', '2', '0', String((p >> 1n).toString(2).length - 1), '2', (p >> 1n).toString(16).toUpperCase()].join(' ');
    const [p512, p511] = [safe(512), safe(511)];
    const r = await screenModuli(`${candidate(p512)}\n${candidate(p511)}\n`, { backend });
    expect(r.good.map((e) => e.modulus)).toEqual([p512]);
    expect(r.bad).toEqual([{ lineNo: 2, reason: "p's size 510 is below ssh-keygen's least (511)" }]);
  });

  it('uses at most the threads it is given, and every core without them', async () => {
    const some = candidates.split('\n').slice(0, 80).join('\n');
    expect(await mostInFlight(() => screenModuli(some, { backend, threads: 1 }))).toBe(1);
    vi.restoreAllMocks();
    // Without a cap, two tasks a thread keep the pool fed: the count above is the cap's doing.
    expect(await mostInFlight(() => screenModuli(some, { backend }))).toBe(2 * pool.poolSize());
  });
});

describe('screenModuli refuses bad arguments, naming them', () => {
  it.each([
    [[42], TypeError, /text must be a string/],
    // Named by what they are, not as [object Uint8Array].
    [[new TextEncoder().encode('2 6 100 2047 2 FF')], TypeError, /^text must be a string \(got a Uint8Array of 17 bytes\)$/],
    [[['a', 'b']], TypeError, /^text must be a string \(got an array of 2\)$/],
    [['', { threads: 0 }], RangeError, /threads must be an integer/],
    [['', { backend: 'gpu' }], RangeError, /backend must be one of/],
    [['', { rounds: -2 }], RangeError, /rounds must be an integer/],
    [['', { onProgress: 'yes' }], TypeError, /onProgress must be a function/],
    [['', { signal: {} }], TypeError, /signal must be an AbortSignal/],
    [['', { bits: 2048 }], TypeError, /bits/],
    [['', []], TypeError, /options/],
  ] as [unknown[], ErrorConstructor, RegExp][])('%j', async (args, kind, text) => {
    const call = screenModuli as (...a: unknown[]) => Promise<unknown>;
    await expect(call(...args)).rejects.toThrow(kind);
    await expect(call(...args)).rejects.toThrow(text);
  });
});
