import { BACKEND_CHOICES, resolveBackend, type Backend, type BackendChoice } from '../backend.ts';
import { PowExhaustedError } from '../errors.ts';
import { publish } from '../pool/claim-loop.ts';
import { poolSize, runOnThreads } from '../pool/pool.ts';
import { createShared, shared } from '../pool/shared-search.ts';
import { MAX_DIFFICULTY, MAX_SOLUTION_LENGTH, MIN_DIFFICULTY } from '../limits.ts';
import { RunLifecycle, throwIfAborted } from '../run-lifecycle.ts';
import { argumentError, checkCount, checkOptions, checkFunction, checkInteger, checkOneOf, checkSignal, checkString, checkThreads, checkWellFormed, optionNames } from '../validate.ts';
import { powChunk, type PowTask } from './task.ts';
import { candidate } from './order.ts';
import { CHUNK_SIZE } from './range.ts';
import { PowTarget, meetsDifficulty } from './target.ts';
import { sha256 } from '../hash/sha256.ts';

export interface PowChallenge {
  /** Prefix of the hashed message (encoded as UTF-8). */
  nonce: string;
  /** Leading '0' hex characters required, 0 to 64. */
  difficulty: number;
}

export interface PowProgress {
  /** Candidates tested so far. */
  attempts: number;
  /** Candidates per second since the start. */
  hashRate: number;
}

export interface SolveOptions {
  /** Worker threads (default: one per core). The answer does not depend on it. */
  threads?: number;
  /** 'auto' (default) uses the native addon when it loaded. */
  backend?: BackendChoice;
  /** Stops the search; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called at most 4 times a second while searching. */
  onProgress?: (p: PowProgress) => void;
  /** Give up (PowExhaustedError) after testing counters 0 .. maxAttempts-1. */
  maxAttempts?: number | bigint;
}

/** Every option of solvePow: any other key is refused. */
export const SOLVE_OPTIONS = optionNames<SolveOptions>()(['threads', 'backend', 'signal', 'onProgress', 'maxAttempts']);

export interface PowSolution {
  /** The digit string S to send. */
  solution: string;
  /** Its position k in the canonical order (see src/pow/order.ts). */
  counter: bigint;
  /** Candidates hashed, across every thread (at least counter + 1). */
  attempts: number;
  elapsedMs: number;
  backend: Backend;
}

const WORKER = new URL('../worker.ts', import.meta.url);

/**
 * Finds the lowest counter k whose S_k makes SHA-256(nonce‖S_k) start with
 * `difficulty` '0' hex characters. The same S for every backend and thread count.
 */
export async function solvePow(challenge: PowChallenge, opts?: SolveOptions): Promise<PowSolution> {
  const options: SolveOptions = checkOptions('options', opts, 'solvePow', SOLVE_OPTIONS);
  if (challenge === null || typeof challenge !== 'object') {
    throw new TypeError('challenge must be an object {nonce, difficulty}');
  }
  const nonce = checkNonce(challenge.nonce);
  const difficulty = checkInteger('difficulty', challenge.difficulty, MIN_DIFFICULTY, MAX_DIFFICULTY);
  const threads = options.threads === undefined ? poolSize() : checkThreads('threads', options.threads);
  const backend = resolveBackend(checkOneOf('backend', options.backend ?? 'auto', BACKEND_CHOICES));
  const signal = checkSignal('signal', options.signal);
  const onProgress = checkFunction<(p: PowProgress) => void>('onProgress', options.onProgress);
  const maxAttempts = options.maxAttempts === undefined ? undefined : checkCount('maxAttempts', options.maxAttempts);

  throwIfAborted(signal);
  const started = performance.now();
  const target = new PowTarget(nonce, difficulty);
  const orderLimit = target.layout.limit;
  const limit = maxAttempts !== undefined && maxAttempts < orderLimit ? maxAttempts : orderLimit;
  const chunk = CHUNK_SIZE[backend];
  const s = createShared(limit, 1n);

  const finish = (): PowSolution => {
    const best = shared.best(s);
    const attempts = Number(shared.work(s));
    if (best >= limit) {
      const why = limit === orderLimit ? 'the candidate order ends there' : 'maxAttempts';
      throw new PowExhaustedError(attempts, limit, why);
    }
    return { solution: candidate(target.layout, best), counter: best, attempts, elapsedMs: Math.round(performance.now() - started), backend };
  };

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

const encoder = new TextEncoder();
const SOLUTION_FORM = new RegExp(`^[0-9]{1,${MAX_SOLUTION_LENGTH}}$`);

/** A nonce as the service gives it: well-formed text, and not empty (an empty one is an unset variable far more often than a challenge). */
function checkNonce(value: unknown): string {
  const nonce = checkWellFormed('nonce', value);
  if (nonce === '') throw argumentError(RangeError, 'nonce', 'must not be empty (an unset variable?)');
  return nonce;
}

/** True when `solution` is 1–32 ASCII digits and SHA-256(nonce‖solution) meets the difficulty. */
export function verifyPow(nonce: string, difficulty: number, solution: string): boolean {
  checkNonce(nonce);
  checkInteger('difficulty', difficulty, MIN_DIFFICULTY, MAX_DIFFICULTY);
  checkString('solution', solution);
  if (!SOLUTION_FORM.test(solution)) return false;
  return meetsDifficulty(sha256(encoder.encode(nonce + solution)), difficulty);
}
