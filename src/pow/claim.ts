/**
 * Lowest-first search shared between threads. Chunks of the candidate order
 * are claimed in increasing order from one atomic counter; a found counter
 * lowers the shared best; a thread stops claiming once its next chunk starts
 * at or above the best. Every chunk below the best was claimed earlier and is
 * always finished, so every counter below the answer has been tested and the
 * answer is the same for any thread count.
 */
import type { Backend } from '../backend.ts';
import { CHUNK_SIZE, searchRange } from './range.ts';
import { PowTarget } from './target.ts';

const NEXT = 0;
const BEST = 1;
const ATTEMPTS = 2;
const STOP = 3;

export type SharedSearch = BigUint64Array;

export function createShared(limit: bigint, firstChunk: bigint): SharedSearch {
  const s = new BigUint64Array(new SharedArrayBuffer(4 * 8));
  s[NEXT] = firstChunk;
  s[BEST] = limit;
  return s;
}

export const shared = {
  best: (s: SharedSearch): bigint => Atomics.load(s, BEST),
  attempts: (s: SharedSearch): bigint => Atomics.load(s, ATTEMPTS),
  stop: (s: SharedSearch): void => void Atomics.store(s, STOP, 1n),
  stopped: (s: SharedSearch): boolean => Atomics.load(s, STOP) !== 0n,
  addAttempts: (s: SharedSearch, n: bigint): void => void Atomics.add(s, ATTEMPTS, n),
  lowerBest(s: SharedSearch, k: bigint): void {
    for (let cur = Atomics.load(s, BEST); k < cur; ) {
      const seen = Atomics.compareExchange(s, BEST, cur, k);
      if (seen === cur) return;
      cur = seen;
    }
  },
};

export interface ClaimTask {
  kind: 'pow';
  nonce: string;
  difficulty: number;
  backend: Backend;
  limit: bigint;
  shared: SharedSearch;
}

/** Searches one chunk and publishes what it found and how much it tested. */
export function searchChunk(target: PowTarget, backend: Backend, s: SharedSearch, start: bigint, end: bigint): void {
  const found = searchRange(target, backend, start, end);
  shared.addAttempts(s, found === null ? end - start : found - start + 1n);
  if (found !== null) shared.lowerBest(s, found);
}

/** One thread's share: claims chunks until they start at or above the best (or a stop). */
export function claimLoop(task: ClaimTask): void {
  const target = new PowTarget(task.nonce, task.difficulty);
  const chunk = CHUNK_SIZE[task.backend];
  const s = task.shared;
  while (!shared.stopped(s)) {
    const start = Atomics.add(s, NEXT, 1n) * chunk;
    if (start >= task.limit || start >= shared.best(s)) return;
    const end = start + chunk < task.limit ? start + chunk : task.limit;
    searchChunk(target, task.backend, s, start, end);
  }
}
