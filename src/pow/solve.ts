import { POW_BACKEND_CHOICES, resolvePowBackend, type PowBackend, type PowBackendChoice } from '../backend.ts';
import { publish } from '../pool/claim-loop.ts';
import { poolSize, runOnThreads } from '../pool/pool.ts';
import { createShared, shared } from '../pool/shared-search.ts';
import { RunLifecycle, throwIfAborted } from '../run-lifecycle.ts';
import { checkCount, checkFunction, checkOneOf, checkSignal, checkThreads } from '../validate.ts';
import { checkOptions, optionNames } from '../option-checks.ts';
import { powChunk, type PowTask } from './task.ts';
import { CHUNK_SIZE } from './range.ts';
import { checkChallenge, powResult, searchLimit, type PowChallenge, type PowProgress, type PowSolutionOf } from './solve-input.ts';
import { PowTarget } from './target.ts';

// The challenge, progress and result shapes and verifyPow are shared with the browser entry.
export { verifyPow } from './solve-input.ts';
export type { PowChallenge, PowProgress } from './solve-input.ts';

export interface SolveOptions {
  /** Worker threads (default: one per core). The answer does not depend on it. */
  threads?: number;
  /** 'auto' (default): the native addon where it loaded, else the WebAssembly kernel where it loads, else js. */
  backend?: PowBackendChoice;
  /** Stops the search; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called at most 4 times a second while searching. */
  onProgress?: (p: PowProgress) => void;
  /** Give up (PowExhaustedError) after testing counters 0 .. maxAttempts-1. */
  maxAttempts?: number | bigint;
}

/** Every option of solvePow: any other key is refused. */
export const SOLVE_OPTIONS = optionNames<SolveOptions>()(['threads', 'backend', 'signal', 'onProgress', 'maxAttempts']);

/** What solvePow returns: S, its counter, the work done and the backend that did it. */
export interface PowSolution extends PowSolutionOf<PowBackend> {}

const WORKER = new URL('../worker.ts', import.meta.url);

/**
 * Finds the lowest counter k whose S_k makes SHA-256(nonce‖S_k) start with
 * `difficulty` '0' hex characters. The same S for every backend and thread count.
 */
export async function solvePow(challenge: PowChallenge, opts?: SolveOptions): Promise<PowSolution> {
  const options: SolveOptions = checkOptions('options', opts, 'solvePow', SOLVE_OPTIONS);
  const { nonce, difficulty } = checkChallenge(challenge);
  const threads = options.threads === undefined ? poolSize() : checkThreads('threads', options.threads);
  const backend = resolvePowBackend(checkOneOf('backend', options.backend ?? 'auto', POW_BACKEND_CHOICES));
  const signal = checkSignal('signal', options.signal);
  const onProgress = checkFunction<(p: PowProgress) => void>('onProgress', options.onProgress);
  const maxAttempts = options.maxAttempts === undefined ? undefined : checkCount('maxAttempts', options.maxAttempts);

  throwIfAborted(signal);
  const started = performance.now();
  const target = new PowTarget(nonce, difficulty);
  const limit = searchLimit(target.layout, maxAttempts);
  const chunk = CHUNK_SIZE[backend];
  const s = createShared(limit, 1n);

  const finish = (): PowSolution => powResult(target.layout, limit, shared.best(s), Number(shared.work(s)), started, backend);

  // Easy challenges are answered in the first chunk: spare them the thread start-up.
  publish(s, powChunk(target, backend)(0n, chunk < limit ? chunk : limit));
  if (shared.best(s) < limit || chunk >= limit) return finish();

  const task: PowTask = { kind: 'pow', nonce, difficulty, backend, shared: s };
  const life = new RunLifecycle(
    signal,
    () => shared.stop(s),
    onProgress &&
      (() => {
        const attempts = Number(shared.work(s));
        onProgress({ attempts, hashRate: attempts / ((performance.now() - started) / 1000) });
      }),
  );
  try {
    await runOnThreads(WORKER, task, threads, s);
  } finally {
    life.close();
  }
  life.throwIfAborted();
  return finish();
}
