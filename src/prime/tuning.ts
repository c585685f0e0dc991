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
 * Candidates per slice, the unit threads claim an index's stream in. Native
 * slices hold at least 8192 candidates, about 55 sieve survivors at 2048 bits
 * (70 at 1024), so the IFMA kernel's sixteen-lane Fermat batches are mostly
 * full; a stop is seen between batches, not slices. TS slices are 16x smaller
 * than the tests bound, so a stop is seen quickly there.
 */
export function sliceLength(bits: number, backend: Backend): number {
  const bound = testsBoundSlice(bits);
  return backend === 'native' ? Math.max(bound, 8192) : Math.max(bound / 16, 16);
}

/**
 * Slices a thread claims at once, searched as one range. A range's last
 * Fermat batch is partial, its empty lanes costing as much as full ones, and
 * a q passing there adds a batch for its p alone. The thread that started
 * an index alone (a search of at least as many primes as threads, or a
 * one-thread queue range) claims at least 32768 candidates at a time (four
 * 8192-candidate slices from 725 bits, two from 513, one below), so that
 * loss is spread over four times the tests: 5.7 % fewer batches a 2048-bit
 * prime and 4.2 % at 1024 bits (1–1.4 % above the fewest the lanes need,
 * against 5–8 %). A thread that joins a running index, and threads sharing
 * one from the start, claim one slice at a time: a range above the answer,
 * which a thread still finishes, is wasted whole. Ranges are not made longer
 * than 32768: a range is sieved whole before its first test, so at 512 bits,
 * where an index fits in one slice, four slices at once cost 9 % a prime.
 * Nor above 8192 bits: progress is published a claim at a time, and there a
 * slice alone holds seconds of tests (about 3 s at 16384 bits, by the test
 * cost of sieve-depth.ts: 0.25 ms·(bits/2048)^2.6 a lane, some 50 a slice).
 */
export function slicesPerClaim(bits: number, backend: Backend, alone: boolean): number {
  if (backend !== 'native' || !alone || bits > 8192) return 1;
  return Math.max(1, Math.floor(32768 / sliceLength(bits, backend)));
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
