/**
 * State shared by the threads of one lowest-first search, in a
 * SharedArrayBuffer: the next chunk to claim, the best (lowest) position
 * found so far, counters of work done, and a stop flag. Chunks are claimed in
 * increasing order; a thread stops claiming once its next chunk starts at or
 * above the best; chunks below the best are always finished. So every
 * position below the answer has been searched, whatever the thread count.
 */
const NEXT = 0;
const BEST = 1;
const WORK = 2;
const WORK2 = 3;
const STOP = 4;
const SLOTS = 5;

export type SharedSearch = BigUint64Array;

export function createShared(limit: bigint, firstChunk = 0n): SharedSearch {
  const s = new BigUint64Array(new SharedArrayBuffer(SLOTS * 8));
  s[NEXT] = firstChunk;
  s[BEST] = limit;
  return s;
}

export const shared = {
  /** Claims the next chunk index. */
  claim: (s: SharedSearch): bigint => Atomics.add(s, NEXT, 1n),
  best: (s: SharedSearch): bigint => Atomics.load(s, BEST),
  lowerBest(s: SharedSearch, k: bigint): void {
    for (let cur = Atomics.load(s, BEST); k < cur; ) {
      const seen = Atomics.compareExchange(s, BEST, cur, k);
      if (seen === cur) return;
      cur = seen;
    }
  },
  /** Work counters: candidates hashed (PoW) or sieved (primes), and primes' Fermat tests. */
  work: (s: SharedSearch): bigint => Atomics.load(s, WORK),
  work2: (s: SharedSearch): bigint => Atomics.load(s, WORK2),
  addWork: (s: SharedSearch, n: bigint, n2 = 0n): void => {
    Atomics.add(s, WORK, n);
    if (n2) Atomics.add(s, WORK2, n2);
  },
  stop: (s: SharedSearch): void => void Atomics.store(s, STOP, 1n),
  stopped: (s: SharedSearch): boolean => Atomics.load(s, STOP) !== 0n,
};
