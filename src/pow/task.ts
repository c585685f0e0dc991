/** The PoW search as the pool's claim loop runs it: chunks of counters, searched in the canonical order. */
import type { PowBackend } from '../backend.ts';
import type { SearchChunk } from '../pool/claim-loop.ts';
import { claimLoop } from '../pool/claim-loop.ts';
import type { SharedSearch } from '../pool/shared-search.ts';
import { CHUNK_SIZE, searchRange } from './range.ts';
import { PowTarget } from './target.ts';

/** What a pool thread gets for its share of one solvePow call (the shared state holds the counter limit). */
export interface PowTask {
  kind: 'pow';
  nonce: string;
  difficulty: number;
  backend: PowBackend;
  shared: SharedSearch;
}

/** Searches a chunk of counters; the work is the candidates hashed (up to and including a hit). */
export function powChunk(target: PowTarget, backend: PowBackend): SearchChunk {
  return (start, end) => {
    const found = searchRange(target, backend, start, end);
    return { found, work: found === null ? end - start : found - start + 1n };
  };
}

/** One pool thread's share of a solvePow call. */
export function runPowTask(task: PowTask): void {
  claimLoop(task.shared, CHUNK_SIZE[task.backend], powChunk(new PowTarget(task.nonce, task.difficulty), task.backend));
}
