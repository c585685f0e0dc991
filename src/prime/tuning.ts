/**
 * Speed knobs of the safe-prime search. None of them changes a result (the
 * answer is the least safe prime at or after the start point); they only
 * trade sieve work against primality tests and bound the work per chunk.
 */
import type { Backend } from '../backend.ts';

/** The deepest sieve: the native core builds its sieve primes up to here (kSieveLimit). */
export const SIEVE_LIMIT_MAX = 1 << 23;

/**
 * Sieve primes up to about 2048·bits, up to 2^23: deeper pays while the sieve
 * work a prime adds stays below the Fermat tests it saves. Always below
 * q's least possible value 3·2^(bits−3), so no sieve prime can be q or p.
 */
export function sieveLimit(bits: number): number {
  const depth = Math.min(Math.max(bits * 2048, 1 << 12), SIEVE_LIMIT_MAX);
  return Math.min(depth, 2 ** (bits - 3));
}

/**
 * Candidates per slice: a few tens of milliseconds of tests natively (test
 * cost grows as bits^2..3), so a stop is seen quickly; TS slices are 16x smaller.
 */
export function sliceLength(bits: number, backend: Backend): number {
  const native = Math.min(Math.max(2 ** Math.floor(Math.log2(2 ** 33 / (bits * bits))), 64), 65536);
  return backend === 'native' ? native : Math.max(native / 16, 16);
}

/**
 * Candidates per chunk of a search spread over machines: 64 native slices,
 * about a second or two of one core's work, so queue traffic stays small
 * beside the work. Fixed per bit length whatever the backend (chunks are
 * named by their offsets, and any machine may run any chunk).
 */
export function chunkLength(bits: number): number {
  return 64 * sliceLength(bits, 'native');
}

/**
 * Sliding-window width for an exponent of `bits` bits, the same rows as
 * native/bignum/sliding_window.h (kWindowRows; see there how they relate to
 * the textbook cost model). Only speed depends on it, never a result.
 */
export function windowBits(bits: number): number {
  return bits > 1536 ? 6 : bits > 512 ? 5 : bits > 128 ? 4 : bits > 32 ? 3 : 1;
}
