/**
 * How deep the safe-prime sieve goes: the depth B whose primes strike a
 * candidate when they divide p or q. Which prime an index finds does not
 * depend on it, only how many candidates reach a Fermat test — about
 * lnP²/(12·C2) · ∏_{5≤r<B}(1 − 2/r), falling as 1/ln²B — against what the
 * depth costs: the roots of each prime below B for the index's start (from
 * scratch a residue of the start, sieve_roots.h; on stream v2 the previous
 * index's roots shifted, a few SIMD operations a prime whatever the size),
 * the process's prime table, built once, and 4 bytes a prime of memory.
 *
 * Measured on one thread (bench/safe-prime-profile.ts BITS COUNT SEED DEPTH,
 * stream v2; docs/benchmarks.md has the earlier figures, before the deep
 * primes from stream v2's spacing M = 4·bits² up were walked a block of
 * indexes at a time, native/bignum/far_sieve.h), with the prime table a
 * bitmap built in 0.5 s to 2^30, 0.8 s to 2^31 and 1.6 s to 2^32
 * (prime_table.h) and a 2048-bit Fermat test at 0.25 ms, on Zen 5 (AMD EPYC
 * family 26), 2048 bits, seed 1:
 *
 *   primes  B     tests a prime  core time a prime
 *   16      2^28  1502           440–456 ms
 *   16      2^30  1303           428–450 ms (one run of three 520)
 *   32      2^30  1286           412–415 ms
 *   32      2^31  1206           411–417 ms
 *
 * with a far root's step at 0.85 ns (FAR_STEP_NS); and at 2^31 against 2^32
 * (2026-11-27, one run each), tests and core time a prime: 4096 bits, seed 2,
 * 8 primes, 8614 and 11.73 s against 8079 and 11.48 s; 3072 bits, seed 1, 16
 * primes, 1904 and 1.290 s against 1791 and 1.287 s. The model in runCostMs:
 * a Fermat test costs 0.30 ms·(bits/2048)^2.6 (with what goes with it: the
 * tests on p, the slices' sieve); a deep prime below M costs a
 * shift, 2.4 ns an index; a far block of S slots costs FAR_STEP_NS a step
 * over 2·(far primes + S·M·ln(ln B / ln M)) steps, shared by the S/threads
 * indexes a thread searches in it; computing roots from scratch costs
 * (3 + 5·bits/2048) ns a deep prime and the table 0.45 ns a number below its
 * limit, once a process. Below 2048 bits the depth follows
 * B = 2^28·(bits/2048)^3.6, the same trade at sizes where the deep primes
 * are few; from it, the depth is the power of two from 2^28 to SIEVE_LIMIT_MAX that
 * makes the thread's run cheapest, counting the one-time costs against the
 * indexes it will search in a row, and it must save 2 % over 2^28 (the
 * model's own error) and fit the memory bound (deepSieveBytes). So 2048 bits
 * goes to 2^30 for runs of about 16 indexes a thread, 2^31 from about 40 and
 * 2^32 from about 100 (an endless run, whose blocks have one slot, stays at
 * 2^28; a queue worker's chunk has a model of its own, chunk-depth.ts); 3072
 * bits to 2^30 from about 3, 2^31 from 7 and 2^32 from 14 (as measured, about
 * where it starts to pay); 4096 bits to 2^30 for one, 2^31 from 2 and 2^32
 * from 4; 8192 bits to 2^32 for one.
 */
import { availableParallelism, totalmem } from 'node:os';
import type { Backend } from '../backend.ts';
import type { DeepPlan } from '../native-binding.ts';

/** The deepest sieve: the native core's sieve primes go up to here (kSieveLimit). */
export const SIEVE_LIMIT_MAX = 2 ** 32;

/** The deepest sieve the TS backend uses by default: its residues are BigInt divisions. */
const SIEVE_LIMIT_JS = 1 << 23;

/** What the sieve's memory bound is measured against: the machine's memory and the threads that may each hold a sieve. */
export interface SieveMachine {
  totalBytes: number;
  threads: number;
}

export function thisMachine(): SieveMachine {
  return { totalBytes: totalmem(), threads: availableParallelism() };
}

/** Deep sieve primes (from 2^16) below B: π(B) − π(2^16), a little over. */
function deepPrimes(limit: number): number {
  if (limit <= 2 ** 16) return 0;
  return Math.ceil(limit / (Math.log(limit) - 1.1)) - 6542;
}

/** The native core's prime tables' limits (native/bignum/prime_table.cc kTableLimits). */
const TABLE_LIMITS = [2 ** 22, 2 ** 25, 2 ** 28, 2 ** 30, 2 ** 31, SIEVE_LIMIT_MAX];

/** The limit of the prime table a depth reads (native/bignum/prime_table.h deep_table_limit). */
function tableLimit(limit: number): number {
  return TABLE_LIMITS.find((t) => limit <= t) ?? SIEVE_LIMIT_MAX;
}

/**
 * Bytes of deep roots and tables a depth costs a process at most: every prime table up to the depth's (a bit
 * an odd number below its limit; a process keeps each table it built, so one that went shallow, then deep,
 * holds both), and 4 bytes a deep prime in the sieve of each pool thread plus one more (a thread whose index
 * wraps around holds two), each with up to 16 MiB of far windows (farSlots).
 */
export function deepSieveBytes(limit: number, threads: number): number {
  const tables = TABLE_LIMITS.filter((t) => t <= tableLimit(limit)).reduce((sum, t) => sum + t / 16, 0);
  return tables + 4 * (threads + 1) * deepPrimes(limit) + (threads + 1) * 2 ** 24;
}

/** Stream v2's spacing between consecutive starts, in candidates (stream.ts spacing()). */
const spacingOf = (bits: number): number => 4 * bits * bits;

/** The deep window, in candidates (safe_prime_sieve.h deep_window, sieve.ts deepWindow). */
const windowOf = (bits: number): number => Math.min(Math.max((bits * bits) / 2, 2 ** 16), 2 ** 25);

/**
 * Slots of a far block (native/bignum/far_sieve.h): the starts of the
 * indexes all threads search from this one, as a thread sees every
 * `threads`-th of them, up to 64 and to 16 MiB of windows a thread. A run
 * with no end (a queue worker's chunks) does not know that the indexes it
 * meets follow each other, so it walks one slot a block: the per-index pass
 * it made before blocks, never a block's worth for one index.
 */
export function farSlots(bits: number, indexesAhead: number, threads: number): number {
  if (!Number.isFinite(indexesAhead)) return 1;
  const cap = Math.min(64, Math.floor(2 ** 27 / windowOf(bits)));
  return Math.max(1, Math.min(cap, Math.ceil(indexesAhead * threads)));
}

/** What a chain of native sieves is told about its starts (none on v1): stream v2's progression, the far block's slots, and the run's index positions from this one on (`ahead`, left out when there is no end: see DeepPlan). */
export function deepPlan(bits: number, version: 1 | 2, slots: number, ahead = Number.POSITIVE_INFINITY): DeepPlan | undefined {
  if (version !== 2) return undefined;
  return Number.isSafeInteger(ahead) && ahead >= 1 ? { spacing: spacingOf(bits), slots, ahead } : { spacing: spacingOf(bits), slots };
}

/** Core nanoseconds of one step of a far root over a block (far_sieve.cc), measured as above. */
const FAR_STEP_NS = 0.85;

/** Model core milliseconds of a Fermat test of `bits` bits, with what goes with it (the tests on p, the slices' sieve). */
export const testCostMs = (bits: number): number => 0.3 * (bits / 2048) ** 2.6;

/** Model core milliseconds of the roots of every deep prime below B computed from scratch (sieve_roots.h). */
export const scratchRootsMs = (bits: number, limit: number): number => (3 + (5 * bits) / 2048) * 1e-6 * deepPrimes(limit);

/**
 * Model core milliseconds of a far block of `slots` slots at depth B (far_sieve.h): the deep primes
 * from the spacing M up are walked, FAR_STEP_NS a step over 2·(far primes + S·M·ln(ln B / ln M)) steps.
 */
export function farBlockMs(bits: number, limit: number, slots: number): number {
  const m = spacingOf(bits);
  const far = limit > m ? deepPrimes(limit) - deepPrimes(m) : 0;
  return far ? FAR_STEP_NS * 1e-6 * (2 * (far + slots * m * Math.log(Math.log(limit) / Math.log(m)))) : 0;
}

/** Model core milliseconds of a thread's run of `indexes` indexes of `bits` bits at depth B (see above). */
function runCostMs(bits: number, limit: number, indexes: number, threads: number): number {
  const tests = 1686 * (bits / 2048) ** 2 * (28 / Math.log2(limit)) ** 2;
  // Deep primes below the spacing are shifted every index; those above it are walked once a block (far_sieve.h).
  const near = deepPrimes(Math.min(limit, spacingOf(bits)));
  const slots = farSlots(bits, indexes, threads);
  const used = Math.max(1, slots / threads);
  const perIndex = tests * testCostMs(bits) + 2.4e-6 * near + farBlockMs(bits, limit, slots) / used;
  const once = 0.45e-6 * tableLimit(limit) + scratchRootsMs(bits, limit);
  return once + (Number.isFinite(indexes) ? indexes : 1) * perIndex;
}

/**
 * The depth for a search of `bits` bits. `indexesAhead`: the indexes of this
 * size the thread is expected to search one after another (Infinity, the
 * default, for anything that runs for hours); a queue worker's chunk has
 * its own (chunk-depth.ts).
 * Always below q's least possible value 3·2^(bits−3), so no sieve prime can be q or p.
 */
export function sieveLimit(bits: number, backend: Backend = 'native', opts: { indexesAhead?: number; machine?: SieveMachine } = {}): number {
  if (backend === 'js') return Math.min(SIEVE_LIMIT_JS, Math.max(Math.round(2 ** 28 * (bits / 2048) ** 3.6), 1 << 12), 2 ** (bits - 3));
  const forced = forcedSieveLimit();
  if (forced !== null) return Math.min(forced, SIEVE_LIMIT_MAX, 2 ** (bits - 3));
  const scaled = Math.max(Math.round(2 ** 28 * (bits / 2048) ** 3.6), 1 << 12);
  if (scaled < 2 ** 28) return Math.min(scaled, 2 ** (bits - 3));
  const machine = opts.machine ?? thisMachine();
  const indexes = Math.max(opts.indexesAhead ?? Number.POSITIVE_INFINITY, 1e-9);
  // For an endless run, the cost an index (the one-time part amortised away).
  const cost = (b: number): number =>
    Number.isFinite(indexes) ? runCostMs(bits, b, indexes, machine.threads) : runCostMs(bits, b, Infinity, machine.threads) - runCostMs(bits, b, 0, machine.threads);
  let best = 2 ** 28;
  for (let b = 2 ** 29; b <= SIEVE_LIMIT_MAX; b *= 2) {
    // Past 2^28 the roots cost hundreds of MB a thread: never more than an eighth of the machine's memory.
    if (deepSieveBytes(b, machine.threads) > machine.totalBytes / 8) break;
    if (cost(b) < 0.98 * cost(2 ** 28) && cost(b) < cost(best)) best = b;
  }
  return best;
}

/**
 * POWPRIME_SIEVE_LIMIT=B (5 ≤ B, capped at SIEVE_LIMIT_MAX) forces the native
 * sieve's depth, so bench/safe-prime-profile.ts can measure the cost model at
 * several depths through the real search (pool threads inherit the
 * environment). Safe to leave set: no result depends on the depth.
 */
export function forcedSieveLimit(): number | null {
  const v = process.env.POWPRIME_SIEVE_LIMIT;
  if (v === undefined || v === '') return null;
  const b = Number(v);
  if (Number.isSafeInteger(b) && b >= 5) return b;
  if (!badLimitWarned) process.emitWarning(`POWPRIME_SIEVE_LIMIT=${JSON.stringify(v)} is not a whole number from 5; ignored`, { code: 'POWPRIME_BAD_ENV' });
  badLimitWarned = true;
  return null;
}

let badLimitWarned = false;

/** Says once, on the calling thread, that POWPRIME_SIEVE_LIMIT is unusable: the pool's threads that read it have no one to tell. */
export function checkSieveLimitEnv(): void {
  forcedSieveLimit();
}
