/**
 * Speed knobs of the safe-prime search. None of them changes a result (the
 * answer is the least safe prime at or after the start point); they only
 * trade sieve work against primality tests and bound the work per chunk.
 */
import { availableParallelism, totalmem } from 'node:os';
import type { Backend } from '../backend.ts';

/** The deepest sieve: the native core's sieve primes go up to here (kSieveLimit). */
export const SIEVE_LIMIT_MAX = 2 ** 30;

/** What the sieve's memory bound is measured against: the machine's memory and the threads that may each hold a sieve. */
export interface SieveMachine {
  totalBytes: number;
  threads: number;
}

function thisMachine(): SieveMachine {
  return { totalBytes: totalmem(), threads: availableParallelism() };
}

/** Deep sieve primes (from 2^16) below B: π(B) − π(2^16). */
function deepPrimes(limit: number): number {
  if (limit <= 2 ** 16) return 0;
  return Math.ceil(limit / (Math.log(limit) - 1.1)) - 6542;
}

/**
 * Bytes of deep roots and tables a depth costs a process at most: 4 bytes a
 * deep prime in the shared prime table, and in the sieve of each pool thread
 * plus one more (a thread whose index wraps around holds two). Past 2^28 the
 * prime table is built to SIEVE_LIMIT_MAX whatever the depth (small_primes.h).
 */
export function deepSieveBytes(limit: number, threads: number): number {
  const table = limit > 2 ** 28 ? deepPrimes(SIEVE_LIMIT_MAX) : deepPrimes(limit);
  return 4 * (table + (threads + 1) * deepPrimes(limit));
}

/** The deepest sieve the TS backend uses by default: its residues are BigInt divisions. */
const SIEVE_LIMIT_JS = 1 << 23;

/**
 * The sieve's depth B. Which prime an index finds does not depend on it, only
 * how many candidates reach a Fermat test: about lnP²/(12·C2) · ∏_{5≤r<B}(1 − 2/r),
 * which falls as 1/ln²B. What it costs is the roots of each prime below B
 * for the index's start: from scratch a residue of the start (sieve_roots.h:
 * bits/24 SIMD steps a prime), on stream v2 the previous index's roots
 * shifted (a few SIMD operations a prime, whatever the size), plus the
 * process's prime table, built once (0.3 s to 2^28, 1.3 s to 2^30).
 *
 * Cost model, measured on one thread (Intel Xeon family 6 model 167, KVM,
 * AVX-512 IFMA; bench/safe-prime-profile.ts BITS COUNT 1 DEPTH, stream v2, each
 * index's roots derived from the previous index's), core time a prime:
 *
 *   bits  B     tests a prime  setup an index: derived (scratch)  core time a prime
 *   2048  2^28  1481           34 ms (246 ms)                     540 ms (32 primes)
 *   2048  2^29  1378           58 ms (476 ms)                     552 ms
 *   3072  2^28  2657           41 ms (275 ms)                     2703 ms (8 primes)
 *   3072  2^30  2316           133 ms (1235 ms)                   2590 ms
 *
 * At 2048 bits a Fermat test costs 0.30 ms: a step from 2^28 to 2^29 saves
 * about 100 tests (30 ms) and costs 24 ms more shifting, about even, and
 * the deeper table's build (1.3 s a process) besides, so 2^28. The tests'
 * worth grows as bits^3.6 and the shift's cost not at all, so the depth
 * grows as B = 2^28·(bits/2048)^3.6
 * (2^30 from about 3000 bits, where 3072 bits gains 4 % over 8 primes even
 * with the first index's roots from scratch); at 4096 bits, seeds 1–8 (one
 * prime each, roots from scratch) took 4865 tests a prime at 2^28 and 4242 at
 * 2^30 (0.42 × the 2^23 sieve's 9995 expected; 5875 expected at 2^30). The
 * cap 2^30 bounds memory and the first index's setup (roots are exact to
 * 2^32), and past 2^28 only runs long enough to repay that setup go deeper
 * (deepRepays). Below 2048 bits the same formula (2^24.4 at 1024 bits).
 * Always below q's least possible value 3·2^(bits−3), so no sieve prime can be q or p.
 */
export function sieveLimit(bits: number, backend: Backend = 'native', opts: { indexesAhead?: number; machine?: SieveMachine } = {}): number {
  const max = backend === 'native' ? SIEVE_LIMIT_MAX : SIEVE_LIMIT_JS;
  const forced = backend === 'native' ? forcedSieveLimit() : null;
  let depth = Math.min(forced ?? Math.max(Math.round(2 ** 28 * (bits / 2048) ** 3.6), 1 << 12), max);
  if (forced === null && depth > 2 ** 28) {
    const machine = opts.machine ?? thisMachine();
    if (!deepRepays(bits, opts.indexesAhead ?? Number.POSITIVE_INFINITY)) depth = 2 ** 28;
    // Past 2^28 the roots cost hundreds of MB a thread: never more than an
    // eighth of the machine's memory for them (a forced depth is obeyed).
    while (depth > 2 ** 28 && deepSieveBytes(depth, machine.threads) > machine.totalBytes / 8) depth = Math.max(depth / 2, 2 ** 28);
  }
  return Math.min(depth, 2 ** (bits - 3));
}

/**
 * Whether sieving past 2^28 (to 2^30) repays what it costs once: building
 * the deeper prime table (1.3 s a process) and the first index's roots of
 * the primes from 2^28 to 2^30 from scratch (about 0.96 s at 3072 bits,
 * growing as bits), against what each further index of the thread's run
 * gains: 13 % of the tests at 2^28 (1686·(bits/2048)² of them, 0.30 ms each
 * at 2048 bits, growing as bits^2.6) less 0.1 s of deeper shifting. So a
 * thread must expect about 7 indexes in a row at 3072 bits, 2 at 4096 and
 * any at 8192 (the table above). `indexesAhead`: the indexes of this size
 * the thread is expected to search one after another (Infinity for a queue
 * worker or anything else that runs for hours).
 */
function deepRepays(bits: number, indexesAhead: number): boolean {
  const gainMs = 0.13 * 1686 * (bits / 2048) ** 2 * 0.3 * (bits / 2048) ** 2.6 - 100;
  const onceMs = 1300 + (960 * bits) / 3072;
  return indexesAhead * gainMs > onceMs;
}

/**
 * POWPRIME_SIEVE_LIMIT=B (5 ≤ B, capped at SIEVE_LIMIT_MAX) forces the native
 * sieve's depth, so bench/safe-prime-profile.ts can measure the cost model at
 * several depths through the real search (pool threads inherit the
 * environment). Safe to leave set: no result depends on the depth.
 */
function forcedSieveLimit(): number | null {
  const v = process.env.POWPRIME_SIEVE_LIMIT;
  if (v === undefined || v === '') return null;
  const b = Number(v);
  return Number.isSafeInteger(b) && b >= 5 ? b : null;
}

/** A few tens of milliseconds of one-at-a-time tests (test cost grows as bits^2..3). */
function testsBoundSlice(bits: number): number {
  return Math.min(Math.max(2 ** Math.floor(Math.log2(2 ** 33 / (bits * bits))), 64), 65536);
}

/**
 * Candidates per slice. Native slices hold at least 8192 candidates, about
 * 90 sieve survivors, so the IFMA kernel's eight-lane Fermat batches are
 * nearly all full (a slice's last batch is partial; at 2048 slices that cost
 * a tenth of the tests' time); a stop is seen between batches, not slices,
 * so the longer slice does not slow it. TS slices are 16x smaller than the
 * tests bound, so a stop is seen quickly there.
 */
export function sliceLength(bits: number, backend: Backend): number {
  const bound = testsBoundSlice(bits);
  return backend === 'native' ? Math.max(bound, 8192) : Math.max(bound / 16, 16);
}

/**
 * Candidates per chunk of a search spread over machines: about a second or
 * two of one core's work, so queue traffic stays small beside the work.
 * Fixed per bit length whatever the backend and slice length (chunks are
 * named by their offsets, and any machine may run any chunk).
 */
export function chunkLength(bits: number): number {
  return 64 * testsBoundSlice(bits);
}

/**
 * Sliding-window width for an exponent of `bits` bits, the same rows as
 * native/bignum/sliding_window.h (kWindowRows; see there how they relate to
 * the textbook cost model). Only speed depends on it, never a result.
 */
export function windowBits(bits: number): number {
  return bits > 1536 ? 6 : bits > 512 ? 5 : bits > 128 ? 4 : bits > 32 ? 3 : 1;
}
