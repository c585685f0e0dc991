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
 * 167, AVX-512; seed 1, 8 primes; bench/safe-prime-profile.ts): tests a prime
 * 2287 / 1954 / 1811 / 1684 and residue setup 24 / 41 / 81 / 135 ms an index
 * at B = 2^23 / 2^25 / 2^26 / 2^27, a Fermat test 0.36 ms. From 2^26 to 2^27
 * the setup grows by about 55 ms and the tests saved are worth about 46: the
 * optimum is near 2^26. Setup a prime of B grows as π(B)·bits, the tests'
 * worth as bits²·(test cost ∝ bits^1.6); equal at the margin when
 * B ∝ bits^3.6, so B = 2^26·(bits/2048)^3.6 (2^22.4 at 1024 bits, about what
 * the earlier 4096·bits rule gave; 2^28, the cap, from 3072 bits).
 * Always below q's least possible value 3·2^(bits−3), so no sieve prime can be q or p.
 */
export function sieveLimit(bits: number, backend: Backend = 'native'): number {
  const max = backend === 'native' ? SIEVE_LIMIT_MAX : SIEVE_LIMIT_JS;
  const forced = backend === 'native' ? forcedSieveLimit() : null;
  const depth = Math.min(forced ?? Math.max(Math.round(2 ** 26 * (bits / 2048) ** 3.6), 1 << 12), max);
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
