/**
 * Speed knobs of the safe-prime search. None of them changes a result (the
 * answer is the least safe prime at or after the start point); they only
 * trade sieve work against primality tests and bound the work per chunk.
 */
import type { Backend } from '../backend.ts';
import { testCostMs } from './sieve-depth.ts';

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
 * Candidates a thread alone on its index claims at once (see slicesPerClaim):
 * about bits²/32, a power of two from 32768 to 131072, and no more than
 * about 1.5 s of tests by testCostMs (progress is published a claim at a
 * time; a claim holds about 0.6 % survivors): 131072 from 2048 to 4096 bits,
 * 32768 at 8192. An index holds about 260,000·(bits/2048)² candidates to its prime,
 * so at 2048 bits a prime takes about two claims; at 512 bits, where one
 * claim holds a whole index, the surplus is sieved for nothing.
 */
function claimCandidates(bits: number): number {
  const bySize = 2 ** Math.floor(Math.log2((bits * bits) / 32));
  const bySecond = 2 ** Math.floor(Math.log2(1500 / (0.006 * testCostMs(bits))));
  return Math.max(Math.min(bySize, bySecond, 131072), 32768);
}

/**
 * Slices a thread claims at once, searched as one range. A range's last
 * Fermat batch is partial, its empty lanes costing as much as full ones, and
 * a q passing there adds a batch for its p alone. The thread that started
 * an index alone (a search of at least as many primes as threads, or a
 * one-thread queue range) claims claimCandidates at a time, so that loss is
 * spread over many tests: at 32768 candidates (four 8192-candidate slices)
 * 5.7 % fewer batches a 2048-bit prime than one slice at a time and 4.2 % at
 * 1024 bits; at 131072, 2048 bits took 1–3 % less core time a prime again
 * (Zen 5, one thread, 32 primes, seeds 2 and 3: 357 and 352 against 344 and
 * 351 ms; 293 and 297 against 288 and 289 ms). A thread that joins a running
 * index, and threads sharing one from the start, claim one slice at a time:
 * a range above the answer, which a thread still finishes, is wasted whole.
 * Claims stay small where an index is small: a range is sieved whole before
 * its first test, so at 512 bits, where an index fits in one slice, four
 * slices at once cost 9 % a prime. Nor above 8192 bits: progress is
 * published a claim at a time, and there a slice alone holds seconds of
 * tests (about 3 s at 16384 bits, by the test cost of sieve-depth.ts: 0.30
 * ms·(bits/2048)^2.6 a lane, some 50 a slice).
 */
export function slicesPerClaim(bits: number, backend: Backend, alone: boolean): number {
  if (backend !== 'native' || !alone || bits > 8192) return 1;
  return Math.max(1, Math.floor(claimCandidates(bits) / sliceLength(bits, backend)));
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
