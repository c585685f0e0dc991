/**
 * State shared by the threads of one lowest-first search, in a
 * SharedArrayBuffer: the end of the positions searched, the next chunk to
 * claim, the best (lowest) position found so far, counters of work done, and
 * a stop flag. What a position means (a counter, a candidate) is the caller's
 * business; see claim-loop.ts for how chunks are claimed.
 */
const LIMIT = 0;
const NEXT = 1;
const BEST = 2;
const WORK = 3;
const WORK2 = 4;
const STOP = 5;
const SLOTS = 6;

export type SharedSearch = BigUint64Array;

/** A search of positions [0, limit); claiming starts at chunk `firstChunk` (earlier ones are the caller's). */
export function createShared(limit: bigint, firstChunk = 0n): SharedSearch {
  const s = new BigUint64Array(new SharedArrayBuffer(SLOTS * 8));
  s[LIMIT] = limit;
  s[NEXT] = firstChunk;
  s[BEST] = limit;
  return s;
}

export const shared = {
  /** Positions run from 0 to this (exclusive); best() equals it while nothing is found. */
  limit: (s: SharedSearch): bigint => s[LIMIT]!,
  /** Claims the next `n` chunks; returns the first one's index. */
  claim: (s: SharedSearch, n = 1n): bigint => Atomics.add(s, NEXT, n),
  best: (s: SharedSearch): bigint => Atomics.load(s, BEST),
  lowerBest(s: SharedSearch, k: bigint): void {
    for (let cur = Atomics.load(s, BEST); k < cur; ) {
      const seen = Atomics.compareExchange(s, BEST, cur, k);
      if (seen === cur) return;
      cur = seen;
    }
  },
  /** Two work counters, whose meaning is the caller's (e.g. candidates looked at, and tests run). */
  work: (s: SharedSearch): bigint => Atomics.load(s, WORK),
  work2: (s: SharedSearch): bigint => Atomics.load(s, WORK2),
  addWork: (s: SharedSearch, n: bigint, n2 = 0n): void => {
    Atomics.add(s, WORK, n);
    if (n2) Atomics.add(s, WORK2, n2);
  },
  stop: (s: SharedSearch): void => void Atomics.store(s, STOP, 1n),
  /** The stop flag alone, as a one-element view, for code that polls it inside long work (the native sieve). */
  stopFlag: (s: SharedSearch): BigUint64Array => new BigUint64Array(s.buffer, STOP * 8, 1),
  stopped: (s: SharedSearch): boolean => Atomics.load(s, STOP) !== 0n,
};
