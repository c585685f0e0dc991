/**
 * Speed knobs of the safe-prime search. None of them changes a result (the
 * answer is the least safe prime at or after the start point); they only
 * trade sieve work against primality tests and bound the work per chunk.
 */
import type { Backend } from '../backend.ts';

/**
 * Sieve primes up to about 2048·bits, up to 2^23: deeper pays while the sieve
 * work a prime adds stays below the Fermat tests it saves. Always below
 * q's least possible value 3·2^(bits−3), so no sieve prime can be q or p.
 */
export function sieveLimit(bits: number): number {
  const depth = Math.min(Math.max(bits * 2048, 1 << 12), 1 << 23);
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
