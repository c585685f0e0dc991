/**
 * The one lowest-first claim loop, for any search over positions [0, limit)
 * cut into chunks. Chunks are claimed in increasing order; a thread stops
 * claiming once its next chunk starts at or above the best position found;
 * chunks below the best are always finished. So every position below the
 * answer has been searched, whatever the thread count, and the answer is the
 * lowest one. The loop knows nothing of what it searches: that is `search`.
 */
import { shared, type SharedSearch } from './shared-search.ts';

/** What searching one chunk gave: its lowest hit (or null) and the work done. */
export interface ChunkResult {
  found: bigint | null;
  work: bigint;
  work2?: bigint;
}

/** Searches positions [start, end) and returns the lowest hit among them. */
export type SearchChunk = (start: bigint, end: bigint) => ChunkResult;

/** Publishes one chunk's result to the threads sharing `s`. */
export function publish(s: SharedSearch, r: ChunkResult): void {
  shared.addWork(s, r.work, r.work2 ?? 0n);
  if (r.found !== null) shared.lowerBest(s, r.found);
}

/**
 * One thread's share: claims `perClaim` consecutive chunks of `chunk`
 * positions at a time, searched as one range, until they start at or above
 * the best (or a stop). Threads may claim different numbers of chunks: claims
 * still come in increasing order and each is searched whole.
 */
export function claimLoop(s: SharedSearch, chunk: bigint, search: SearchChunk, perClaim = 1n): void {
  const limit = shared.limit(s);
  const span = chunk * perClaim;
  while (!shared.stopped(s)) {
    const start = shared.claim(s, perClaim) * chunk;
    if (start >= limit || start >= shared.best(s)) return;
    publish(s, search(start, start + span < limit ? start + span : limit));
  }
}
