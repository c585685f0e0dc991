/**
 * Safe primes, side by side in one run: one modular exponentiation (native,
 * native base-2, TS, bigint-crypto-utils, OpenSSL through node:crypto, and
 * the TS backend's WebAssembly kernel against BigInt: ./wasm-modexp.ts), and
 * the mean time per safe prime of a seeded search on all cores against
 * node:crypto generatePrime(bits, {safe: true}).
 */
import { checkPrimeSync, generatePrime, generatePrimeSync } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { devNull } from 'node:os';
import { backendInfo } from '../src/backend.ts';
import { native } from '../src/native.ts';
import { poolSize } from '../src/pool/pool.ts';
import { modPow as modPowJs } from '../src/prime/bigint.ts';
import { searchSafePrimes } from '../src/prime/search.ts';
import { expectedTestsPerPrime } from '../src/prime/expectation.ts';
import { sieveLimit } from '../src/prime/sieve-depth.ts';
import { sliceLength, slicesPerClaim } from '../src/prime/tuning.ts';
import { runChild } from './openssl.ts';
import { mean, ratio, spread, target, type BenchRow, type BenchTarget } from './schema.ts';
import { generateDhParams } from '../src/prime/dhparam.ts';
import { runWasmModexpBench } from './wasm-modexp.ts';

export interface PrimeBenchResult {
  threads: number;
  rows: BenchRow[];
  targets: BenchTarget[];
  /** Rows left out, each with its reason. */
  skipped: string[];
}

/** The seeded runs the speed goals were set on: the same primes in every run. */
const SEED = 4242n;

type ModPow = (b: bigint, e: bigint, m: bigint) => bigint;

/** The peer library is a devDependency: a production install has none, and its row is skipped. */
async function loadBigintCryptoUtils(skipped: string[]): Promise<ModPow | null> {
  try {
    const bcu = (await import('bigint-crypto-utils')) as { modPow: (b: bigint, e: bigint, m: bigint) => bigint };
    return (b, e, m) => bcu.modPow(b, e, m);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    skipped.push('bigint-crypto-utils: not installed (a development dependency), its modexp column is skipped');
    return null;
  }
}

/**
 * Milliseconds of each run after one warm-up run. The event loop gets a turn
 * between runs (outside the timed part), so a stop signal is seen within one run.
 */
async function samplesMs(fn: () => unknown, runs: number): Promise<number[]> {
  const xs: number[] = [];
  fn();
  for (let i = 0; i < runs; i++) {
    await nextTurn();
    const t = performance.now();
    fn();
    xs.push(performance.now() - t);
  }
  return xs;
}

/** node:crypto's safe-prime generation off the main thread: the same OpenSSL code, timed whole, while signals are still seen. */
const generateSafePrime = promisify((bits: number, cb: (err: Error | null, p: ArrayBuffer) => void) => generatePrime(bits, { safe: true }, cb));

/** OpenSSL 3 raises Miller–Rabin checks to at least 64 (≤ 2048 bits) or 128 rounds. */
function opensslRounds(bits: number, asked: number): number {
  return Math.max(asked, bits > 2048 ? 128 : 64);
}

/** Seconds of one `openssl dhparam BITS` (generator 2), or null with the reason. */
async function opensslDhparamSeconds(bits: number): Promise<number | string> {
  const t = performance.now();
  const r = await runChild('openssl', ['dhparam', '-out', devNull, '-2', String(bits)], 600_000);
  if (r.error || r.status !== 0) return `openssl dhparam ${bits} failed: ${r.error?.message ?? `exit ${r.status}`}`;
  return (performance.now() - t) / 1000;
}

/**
 * Bytes a thread's sieve holds at most, in MiB: the deep tier's window bitmap
 * (safe_prime_sieve.h), two 4-byte roots a dense prime (below 2^16) and the
 * marks of the longest range a thread claims; the process-wide deep prime
 * tables are extra (16 MB to 2^28, 64 MB to 2^30, each one the process built).
 */
function sieveMemoryMiB(bits: number, limit: number): string {
  const windowBits = Math.min(Math.max(Math.floor((bits * bits) / 2), 2 ** 16), 2 ** 25);
  // Deep roots, 4 bytes a deep prime (π(B) ≈ B/(ln B − 1)), in the searching sieve and a second one while an index wraps around.
  const deepRoots = limit > 2 ** 16 ? (2 * 4 * limit) / (Math.log(limit) - 1) : 0;
  return ((windowBits / 8 + 8 * 6542 + sliceLength(bits, 'native') * slicesPerClaim(bits, 'native', true) + deepRoots) / 2 ** 20).toFixed(2);
}

/**
 * Searches of one thread each: Fermat tests and process core time a prime
 * over the seeds, `count` primes each, the pool started first. `lanes` seeds
 * run at once, each search on its own thread (a search's tests do not depend
 * on what runs beside it; its core time does not either, but the process's
 * total is all the lanes').
 */
async function oneThread(bits: number, count: number, seeds: bigint[], lanes = 1): Promise<{ tests: number; coreMs: number; primes: number; perSeed: number[] }> {
  for await (const _ of searchSafePrimes({ bits: 64, count: 1, seed: 1n, threads: 1, backend: 'native' }));
  // Tests a prime seed by seed: how far one seed's figure sits from another's shows how much a set this size can say.
  const bySeed: { tested: number; found: number }[] = [];
  const one = async (seed: bigint): Promise<{ tested: number; found: number }> => {
    let tested = 0;
    let found = 0;
    for await (const _ of searchSafePrimes({ bits, count, seed, threads: 1, backend: 'native', onProgress: (p) => (tested = p.tested) })) found++;
    return { tested, found };
  };
  const t = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, seeds.length) }, async () => {
      while (next < seeds.length) {
        const i = next++;
        bySeed[i] = await one(seeds[i]!);
      }
    }),
  );
  const u = process.cpuUsage(t);
  const tests = bySeed.reduce((a, x) => a + x.tested, 0);
  const primes = bySeed.reduce((a, x) => a + x.found, 0);
  return { tests: tests / primes, coreMs: (u.user + u.system) / 1000 / primes, primes, perSeed: bySeed.map((x) => x.tested / x.found) };
}

export async function runPrimeBench(opts: { quick: boolean; onStep?: (name: string) => void }): Promise<PrimeBenchResult> {
  const n = backendInfo().backend === 'native' ? native() : null;
  const rows: BenchRow[] = [];
  const skipped: string[] = [];
  // One row: the median of its samples, unless a value (a mean, a count) is given; `runs` then says over how many.
  const add = (r: Pick<BenchRow, 'chart' | 'series' | 'bits' | 'what' | 'unit'> & { xs?: number[]; value?: number; runs?: number; note?: string }): void => {
    const { xs = [], value, runs, note, ...rest } = r;
    const sp = spread(xs);
    rows.push({ suite: 'prime', ...rest, value: value ?? sp.median, ...sp, ...(runs !== undefined ? { runs } : {}), ...(note ? { note } : {}) });
  };
  const value = (what: string): number | null => rows.find((r) => r.what === what)?.value ?? null;
  const bcuModPow = await loadBigintCryptoUtils(skipped);
  if (!n) skipped.push(`native rows: the addon is not loaded (${backendInfo().nativeError})`);
  // No goal is set at 4096 bits, and OpenSSL's check there (128 rounds) takes seconds: the full run only.
  for (const bits of opts.quick ? [1024, 2048] : [1024, 2048, 4096]) {
    opts.onStep?.(`modexp ${bits} bits`);
    const p = generatePrimeSync(bits, { bigint: true });
    const e = p - 1n;
    const b = (p * 7n) / 13n;
    const runs = opts.quick ? 3 : 7;
    const slow = bits >= 4096 ? 1 : runs;
    const checks = 128;
    const modexp = (series: string, xs: number[], note?: string): void => add({ chart: 'modexp', series, bits, what: `modexp ${bits} bits, ${series}`, unit: 'ms', xs, ...(note ? { note } : {}) });
    if (n) {
      modexp('native', await samplesMs(() => n.modPow(b, e, p), runs * 5));
      modexp('native base-2', await samplesMs(() => n.pow2Mod(e, p), runs * 5));
    }
    modexp('TS', await samplesMs(() => modPowJs(b, e, p), slow));
    if (bcuModPow) modexp('bigint-crypto-utils', await samplesMs(() => bcuModPow(b, e, p), slow));
    const rounds = opensslRounds(bits, checks);
    modexp(
      'OpenSSL per MR round',
      (await samplesMs(() => checkPrimeSync(p, { checks }), runs)).map((x) => x / rounds),
      `checkPrimeSync on a prime / its ${rounds} Miller–Rabin rounds`,
    );
  }

  // The TS backend's exponentiations: the WebAssembly kernel against BigInt, paired.
  const wasm = runWasmModexpBench(opts);
  rows.push(...wasm.rows);
  skipped.push(...wasm.skipped);

  const threads = poolSize();
  // node:crypto takes minutes for one safe prime above 2048 bits: those sizes
  // are ours alone (ssl: 0), and 4096 bits only in the full run.
  const plan = opts.quick
    ? [
        { bits: 512, count: 24, ssl: 4 },
        { bits: 1024, count: 12, ssl: 2 },
      ]
    : [
        { bits: 512, count: 64, ssl: 8 },
        { bits: 1024, count: 32, ssl: 4 },
        { bits: 2048, count: 8, ssl: 2 },
        { bits: 3072, count: 2, ssl: 0 },
        { bits: 4096, count: 2, ssl: 0 },
        { bits: 8192, count: 1, ssl: 0 },
      ];
  for (const { bits, count, ssl } of plan) {
    if (n) {
      opts.onStep?.(`safe primes ${bits} bits, native on ${threads} threads`);
      const t = performance.now();
      let k = 0;
      let tested = 0;
      for await (const _ of searchSafePrimes({ bits, count, seed: SEED, backend: 'native', onProgress: (pr) => (tested = pr.tested) })) k++;
      const wall = (performance.now() - t) / 1000;
      const series = `native ${threads} threads`;
      // The depth the search chose: it depends on the indexes each thread searches in a row.
      const limit = sieveLimit(bits, 'native', { indexesAhead: count / threads });
      add({ chart: 'safe-prime', series, bits, what: `safe prime ${bits} bits, ${series}`, unit: 's', value: wall / k, runs: k, note: `mean wall time per prime over ${k}` });
      // The time per prime read as work × unit cost: Fermat tests per prime (against the
      // Hardy–Littlewood expectation for this sieve bound) and core time per test.
      add({
        chart: 'fermat-tests',
        series: 'measured',
        bits,
        what: `Fermat tests per prime ${bits} bits, measured`,
        unit: 'tests',
        value: tested / k,
        note: `over ${k} primes, slices searched past the answer included`,
      });
      add({
        chart: 'fermat-tests',
        series: 'expected',
        bits,
        what: `Fermat tests per prime ${bits} bits, expected`,
        unit: 'tests',
        value: expectedTestsPerPrime(bits, limit),
        note: `Hardy–Littlewood with the sieve to ${limit} (the depth the native search used); sieve memory at most ${sieveMemoryMiB(bits, limit)} MiB a thread`,
      });
      if (tested) {
        add({
          chart: 'fermat-cost',
          series: 'core ms per test',
          bits,
          what: `core time per Fermat test ${bits} bits`,
          unit: 'ms',
          value: (wall * threads * 1000) / tested,
          note: 'wall × threads / tests (sieving included)',
        });
      }
    }
    if (ssl === 0) continue;
    opts.onStep?.(`safe primes ${bits} bits, node:crypto`);
    const each: number[] = [];
    for (let i = 0; i < ssl; i++) {
      const t = performance.now();
      await generateSafePrime(bits);
      each.push((performance.now() - t) / 1000);
    }
    add({ chart: 'safe-prime', series: 'node:crypto (1 core)', bits, what: `safe prime ${bits} bits, node:crypto`, unit: 's', xs: each, value: mean(each), note: `mean over ${ssl}` });
  }

  // The core-time goals of the deep sieve, on one thread in this run: at 2048
  // bits, seed 1, 32 primes, Fermat tests a prime and core time a prime against
  // OpenSSL's 2048-bit Miller–Rabin round; at 4096 bits, tests a prime over a
  // fixed seed set against what the old sieve to 2^23 expected.
  if (n && !opts.quick) {
    opts.onStep?.('safe primes 2048 bits, native on 1 thread, seed 1');
    const one = await oneThread(2048, 32, [1n]);
    add({
      chart: 'fermat-tests',
      series: 'measured, 1 thread, seed 1',
      bits: 2048,
      what: 'Fermat tests per prime 2048 bits, 1 thread, seed 1',
      unit: 'tests',
      value: one.tests,
      runs: one.primes,
      note: `over ${one.primes} primes`,
    });
    add({
      chart: 'safe-prime',
      series: 'native 1 thread, core time',
      bits: 2048,
      what: 'core time per safe prime 2048 bits, 1 thread, seed 1',
      unit: 's',
      value: one.coreMs / 1000,
      runs: one.primes,
      note: `process CPU time over the search / ${one.primes} primes (pool started beforehand)`,
    });
    // A fixed set of 64 primes, seeds 101-108 with 8 primes each (chosen on
    // 2026-11-27 before any of them was measured): the tests between two
    // safe primes are about geometric, so a mean over k primes is good to
    // about ±1/√k, and the set must resolve the sieve's expectation (0.52 of
    // the 2^23 sieve's at 2^32) from the goal (0.6); the 8 primes this row
    // used before (seeds 1-4, two each: ±35 %) could not. Eight primes a
    // seed is a run the deepest sieve pays for (sieve-depth.ts); the seeds
    // run side by side, one thread each.
    const seeds4096 = Array.from({ length: 8 }, (_, i) => 101n + BigInt(i));
    opts.onStep?.('safe primes 4096 bits, native, seeds 101-108, 8 primes each, one thread a seed');
    const four = await oneThread(4096, 8, seeds4096, poolSize());
    const deep4096 = sieveLimit(4096, 'native', { indexesAhead: 8 });
    add({
      chart: 'fermat-tests',
      series: 'measured, 1 thread a seed, seeds 101-108',
      bits: 4096,
      what: 'Fermat tests per prime 4096 bits, seeds 101-108',
      unit: 'tests',
      value: four.tests,
      runs: four.primes,
      note: `eight primes a seed (${four.perSeed.map((x) => x.toFixed(0)).join(', ')} tests a prime; a mean of ${four.primes} primes is good to about ±${Math.round(100 / Math.sqrt(four.primes))} %), sieve to ${deep4096} (expects ${expectedTestsPerPrime(4096, deep4096).toFixed(0)}); the sieve to 2^23 expects ${expectedTestsPerPrime(4096, 1 << 23).toFixed(0)}`,
    });
  }

  // DH parameters end to end, as a user would make them: ours (all cores) against `openssl dhparam` (one core).
  const dhBits = opts.quick ? [1024] : [1024, 2048];
  for (const bits of dhBits) {
    if (n) {
      opts.onStep?.(`dhparam ${bits} bits, powprime`);
      const each: number[] = [];
      for (let seed = 1n; seed <= (opts.quick ? 2n : 4n); seed++) {
        const t = performance.now();
        await generateDhParams({ bits, seed, backend: 'native' });
        each.push((performance.now() - t) / 1000);
      }
      add({ chart: 'safe-prime', series: 'powprime dhparam', bits, what: `dhparam ${bits} bits, powprime`, unit: 's', xs: each, value: mean(each), note: `mean over ${each.length} seeds` });
    }
    opts.onStep?.(`dhparam ${bits} bits, openssl dhparam`);
    const each: number[] = [];
    // openssl dhparam's time varies tenfold between runs (its search starts at
    // random, and the candidates it tries before a safe prime are about
    // geometric: a mean of k runs is off by about 1/√k). The 2048-bit mean
    // decides a goal: ten runs, since with four a run on 2026-11-27 (Zen 5)
    // averaged 3.9 s against 12.2 s in the runs either side, and the ratio
    // read 11.9 × against 36 ×.
    for (let i = 0; i < (opts.quick ? 1 : bits >= 2048 ? 10 : 4); i++) {
      const r = await opensslDhparamSeconds(bits);
      if (typeof r === 'string') {
        skipped.push(r);
        break;
      }
      each.push(r);
    }
    if (each.length)
      add({ chart: 'safe-prime', series: 'openssl dhparam', bits, what: `dhparam ${bits} bits, openssl dhparam`, unit: 's', xs: each, value: mean(each), note: `mean over ${each.length}` });
  }

  const targets = [
    ...wasm.targets,
    target('2048-bit modexp, native / OpenSSL per round', ratio(value('modexp 2048 bits, native'), value('modexp 2048 bits, OpenSSL per MR round')), '×', 1.0, 'max'),
    // "Base-2 Fermat at least 15% faster still": than OpenSSL's round, as the modexp line compares.
    target('2048-bit base-2 Fermat, native / OpenSSL per round', ratio(value('modexp 2048 bits, native base-2'), value('modexp 2048 bits, OpenSSL per MR round')), '×', 0.85, 'max'),
    target('2048-bit modexp, TS / bigint-crypto-utils', ratio(value('modexp 2048 bits, TS'), value('modexp 2048 bits, bigint-crypto-utils')), '×', 1.0, 'max'),
    target(`1024-bit safe prime on ${threads} threads`, value(`safe prime 1024 bits, native ${threads} threads`), 's', 0.1, 'max'),
  ];
  // The goals below are set at sizes only the full run measures. A quick run
  // leaves them out rather than judge them on smaller sizes (openssl dhparam
  // at 1024 bits is no measure of the 20× goal set at 2048).
  if (!opts.quick) {
    targets.push(
      target(`2048-bit safe prime on ${threads} threads`, value(`safe prime 2048 bits, native ${threads} threads`), 's', 0.45, 'max'),
      target(`3072-bit safe prime on ${threads} threads`, value(`safe prime 3072 bits, native ${threads} threads`), 's', 3, 'max'),
      target('2048-bit dhparam, openssl dhparam / powprime', ratio(value('dhparam 2048 bits, openssl dhparam'), value('dhparam 2048 bits, powprime')), '×', 20, 'min'),
      target('2048-bit Fermat tests a safe prime, 1 thread, seed 1', value('Fermat tests per prime 2048 bits, 1 thread, seed 1'), 'tests', 1800, 'max', { counted: true }),
      // The round is in ms and the core time in s.
      target(
        '2048-bit core time a safe prime / OpenSSL MR round',
        ratio(value('core time per safe prime 2048 bits, 1 thread, seed 1'), value('modexp 2048 bits, OpenSSL per MR round')) === null
          ? null
          : (1000 * value('core time per safe prime 2048 bits, 1 thread, seed 1')!) / value('modexp 2048 bits, OpenSSL per MR round')!,
        '×',
        250,
        'max',
      ),
      target("4096-bit Fermat tests a prime / the 2^23 sieve's expectation", ratio(value('Fermat tests per prime 4096 bits, seeds 101-108'), expectedTestsPerPrime(4096, 1 << 23)), '×', 0.6, 'max', {
        counted: true,
      }),
    );
  }
  return { threads, rows, targets, skipped };
}
