/**
 * What every solvePow and verifyPow agree on, whatever runs the search (Node's
 * thread pool, a browser's Web Workers): the challenge's checks, the counter
 * limit, the result's shape and the check of a solution. Neutral on purpose:
 * nothing here may import a Node built-in, the pool or the addon, because the
 * browser entry (src/browser) uses it as it is.
 */
import { PowExhaustedError } from '../errors.ts';
import { sha256 } from '../hash/sha256.ts';
import { MAX_DIFFICULTY, MAX_SOLUTION_LENGTH, MIN_DIFFICULTY } from '../limits.ts';
import { argumentError, checkInteger, checkString, checkWellFormed } from '../validate.ts';
import { candidate, type PowLayout } from './order.ts';
import { meetsDifficulty } from './target.ts';

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

/** A solvePow answer; `B` names the backends of the entry that found it. */
export interface PowSolutionOf<B extends string> {
  /** The digit string S to send. */
  solution: string;
  /** Its position k in the canonical order (see src/pow/order.ts). */
  counter: bigint;
  /** Candidates hashed, across every thread (at least counter + 1). */
  attempts: number;
  elapsedMs: number;
  backend: B;
}

/** A nonce as the service gives it: well-formed text, and not empty (an empty one is an unset variable far more often than a challenge). */
function checkNonce(value: unknown): string {
  const nonce = checkWellFormed('nonce', value);
  if (nonce === '') throw argumentError(RangeError, 'nonce', 'must not be empty (an unset variable?)');
  return nonce;
}

/** solvePow's first argument, checked. */
export function checkChallenge(challenge: unknown): PowChallenge {
  if (challenge === null || typeof challenge !== 'object') {
    throw new TypeError('challenge must be an object {nonce, difficulty}');
  }
  const c = challenge as Partial<PowChallenge>;
  const nonce = checkNonce(c.nonce);
  return { nonce, difficulty: checkInteger('difficulty', c.difficulty, MIN_DIFFICULTY, MAX_DIFFICULTY) };
}

/** Counters searched: the order's own end, or maxAttempts when that comes first. */
export function searchLimit(layout: PowLayout, maxAttempts: bigint | undefined): bigint {
  return maxAttempts !== undefined && maxAttempts < layout.limit ? maxAttempts : layout.limit;
}

/**
 * The answer for the lowest hit `best` of a search over counters [0, limit),
 * or PowExhaustedError when nothing below `limit` met the difficulty.
 */
export function powResult<B extends string>(layout: PowLayout, limit: bigint, best: bigint, attempts: number, started: number, backend: B): PowSolutionOf<B> {
  if (best >= limit) {
    const why = limit === layout.limit ? 'the candidate order ends there' : 'maxAttempts';
    throw new PowExhaustedError(attempts, limit, why);
  }
  return { solution: candidate(layout, best), counter: best, attempts, elapsedMs: Math.round(performance.now() - started), backend };
}

const encoder = new TextEncoder();
const SOLUTION_FORM = new RegExp(`^[0-9]{1,${MAX_SOLUTION_LENGTH}}$`);

/** True when `solution` is 1–32 ASCII digits and SHA-256(nonce‖solution) meets the difficulty. */
export function verifyPow(nonce: string, difficulty: number, solution: string): boolean {
  checkNonce(nonce);
  checkInteger('difficulty', difficulty, MIN_DIFFICULTY, MAX_DIFFICULTY);
  checkString('solution', solution);
  if (!SOLUTION_FORM.test(solution)) return false;
  return meetsDifficulty(sha256(encoder.encode(nonce + solution)), difficulty);
}
