/**
 * Speed knobs of the safe-prime search. None of them changes a result (the
 * answer is the least safe prime at or after the start point); they only
 * trade sieve work against primality tests and bound the work per chunk.
 */
import type { Backend } from '../backend.ts';

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
