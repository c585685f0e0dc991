/** One thread's share of a lowest-first PoW search (see pool/shared-search.ts). */
import type { Backend } from '../backend.ts';
import { shared, type SharedSearch } from '../pool/shared-search.ts';
import { CHUNK_SIZE, searchRange } from './range.ts';
import { PowTarget } from './target.ts';

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
  shared.addWork(s, found === null ? end - start : found - start + 1n);
  if (found !== null) shared.lowerBest(s, found);
}

/** One thread's share: claims chunks until they start at or above the best (or a stop). */
export function claimLoop(task: ClaimTask): void {
  const target = new PowTarget(task.nonce, task.difficulty);
  const chunk = CHUNK_SIZE[task.backend];
  const s = task.shared;
  while (!shared.stopped(s)) {
    const start = shared.claim(s) * chunk;
    if (start >= task.limit || start >= shared.best(s)) return;
    const end = start + chunk < task.limit ? start + chunk : task.limit;
    searchChunk(target, task.backend, s, start, end);
  }
}
