/**
 * Speed knobs of the safe-prime search. None of them changes a result (the
 * answer is the least safe prime at or after the start point); they only
 * trade sieve work against primality tests and bound the work per chunk.
 */
import type { Backend } from '../backend.ts';

/** The deepest sieve: the native core's sieve primes go up to here (kSieveLimit). */
export const SIEVE_LIMIT_MAX = 2 ** 28;

/** The deepest sieve the TS backend uses by default: its residues are BigInt divisions. */
const SIEVE_LIMIT_JS = 1 << 23;

/**
 * The sieve's depth B. Which prime an index finds does not depend on it, only
 * how many candidates reach a Fermat test: about lnP²/(12·C2) · ∏_{5≤r<B}(1 − 2/r),
 * which falls as 1/ln²B. What it costs is a residue of the start point per
 * prime below B, once an index (sieve_roots.h: bits/24 SIMD steps a prime).
 *
 * Cost model, measured at 2048 bits on one thread (Intel Xeon family 6 model
 * 167, KVM, AVX-512 IFMA; seed 1, 32 primes; bench/safe-prime-profile.ts
 * 2048 32 1 <depth> v2e, stream v2's spacing with each index's deep roots
 * derived from the previous index's; Fermat test 0.30 ms):
 *
 *   B      tests a prime   residue setup an index    core time a prime
 *          v2e (v1)        derived  (from scratch)   v2e      (v1, from scratch)
 *   2^26   2209 (2309)     29 ms    (76 ms)          757 ms   (826 ms)
 *   2^27   2052 (2141)     47 ms    (136 ms)         727 ms   (829 ms)
 *   2^28   1909 (1988)     77 ms    (240–261 ms)     706 ms   (948 ms)
 *
 * Derived, a step from 2^27 to 2^28 costs about 30 ms of setup and saves
 * about 140 tests (42 ms): the optimum is at or past the cap, so 2^28 (the
 * roots are exact only below 2^28, sieve_roots.h). Computed from scratch
 * every index (stream v1), 2^28 would cost 15 % more than 2^26: this depth
 * is for v2's derived residues. Past 2048 bits the tests' worth grows as
 * bits^3.6 and the setup at most as bits, so the cap holds from 2048 bits
 * up (4096 bits at 2^28, seeds 1–4, one prime each, from scratch: 1273,
 * 4223, 4270 and 180 tests, mean 2487 = 0.25 × the 2^23 sieve's 9995
 * expected and 0.37 × the 6744 expected at 2^28; four primes are few);
 * below, B = 2^28·(bits/2048)^3.6 keeps the earlier scaling (2^24.4 at 1024 bits).
 * Always below q's least possible value 3·2^(bits−3), so no sieve prime can be q or p.
 */
export function sieveLimit(bits: number, backend: Backend = 'native'): number {
  const max = backend === 'native' ? SIEVE_LIMIT_MAX : SIEVE_LIMIT_JS;
  const forced = backend === 'native' ? forcedSieveLimit() : null;
  const depth = Math.min(forced ?? Math.max(Math.round(2 ** 28 * (bits / 2048) ** 3.6), 1 << 12), max);
  return Math.min(depth, 2 ** (bits - 3));
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
