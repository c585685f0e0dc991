/**
 * The one error model. Every error powprime throws on purpose (bad arguments
 * aside, which stay the built-in TypeError/RangeError naming the argument)
 * extends PowprimeError and carries a stable string `code` that callers and
 * the CLI branch on, never the message text. Service errors add `transient`,
 * which the retry logic reads instead of a list of classes.
 */

export abstract class PowprimeError extends Error {
  /** Stable identifier, e.g. 'ERR_POW_EXHAUSTED'; part of the public API. */
  abstract readonly code: string;
  /** True when the same call may succeed later (retried with backoff where the caller retries). */
  readonly transient: boolean = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    // So stack traces and String(err) say what it is. Each of powprime's classes then sets its name as a
    // string (`override readonly name`), which a page's minifier leaves alone where it renames classes;
    // the constructor's name is for a subclass of a caller's that sets none.
    this.name = new.target.name;
  }
}

/** solvePow tried every candidate it was allowed to and none met the difficulty. */
export class PowExhaustedError extends PowprimeError {
  readonly code = 'ERR_POW_EXHAUSTED';
  override readonly name: string = 'PowExhaustedError';
  constructor(
    /** Candidates tested. */
    readonly attempts: number,
    /** The counter bound that was reached (maxAttempts or the order's end). */
    readonly limit: bigint,
    reason: string,
  ) {
    super(`no solution among the first ${limit} candidates (${reason})`);
  }
}

/** A backend was asked for by name but cannot run here. */
export class BackendUnavailableError extends PowprimeError {
  readonly code = 'ERR_BACKEND_UNAVAILABLE';
  override readonly name: string = 'BackendUnavailableError';
  constructor(
    readonly backend: string,
    readonly reason: string,
  ) {
    super(`backend '${backend}' is unavailable: ${reason}`);
  }
}

/**
 * The work was interrupted by a signal (Ctrl-C / SIGINT, SIGTERM, SIGHUP).
 * The CLI exits 128 + the signal's number (130 for Ctrl-C); `detail` says
 * what was kept or how to resume.
 */
export class InterruptedError extends PowprimeError {
  readonly code = 'ERR_INTERRUPTED';
  override readonly name: string = 'InterruptedError';
  constructor(
    readonly signal: string = 'SIGINT',
    readonly detail?: string,
  ) {
    super(`interrupted (${signal})${detail ? `: ${detail}` : ''}`);
  }
}

/** closePool() ended the pool while this call's work was still running on it. */
export class PoolClosedError extends PowprimeError {
  readonly code = 'ERR_POOL_CLOSED';
  override readonly name: string = 'PoolClosedError';
  constructor(options?: { cause?: unknown }) {
    super('the worker pool was closed while the work was running', options);
  }
}

/** A search was stopped (its signal aborted, or its caller left early) before it reached an answer. */
export class SearchStoppedError extends PowprimeError {
  readonly code = 'ERR_SEARCH_STOPPED';
  override readonly name: string = 'SearchStoppedError';
  constructor() {
    super('the search was stopped before it finished');
  }
}

/** Not one candidate of a safe-prime index's range is a safe prime. */
export class NoSafePrimeError extends PowprimeError {
  readonly code = 'ERR_NO_SAFE_PRIME';
  override readonly name: string = 'NoSafePrimeError';
  constructor(
    readonly bits: number,
    readonly index: bigint,
  ) {
    super(`no safe prime of ${bits} bits in the whole range (index ${index})`);
  }
}

/** A broken internal invariant: a bug in powprime, never the caller's input. */
export class InternalError extends PowprimeError {
  readonly code = 'ERR_INTERNAL';
  override readonly name: string = 'InternalError';
}

/** Redis, where a queue-mode search keeps its jobs, could not be reached. */
export class QueueUnreachableError extends PowprimeError {
  readonly code = 'ERR_QUEUE_UNREACHABLE';
  override readonly name: string = 'QueueUnreachableError';
  constructor(
    readonly target: string,
    reason: string,
  ) {
    super(`cannot reach the queue at ${target}: ${reason}`);
  }
}

/** A job of a queue-mode search (a chunk, or a registration) failed on every attempt; its error is the worker's. */
export class QueueJobFailedError extends PowprimeError {
  readonly code = 'ERR_QUEUE_JOB_FAILED';
  override readonly name: string = 'QueueJobFailedError';
  constructor(
    readonly kind: 'chunk' | 'registration',
    readonly jobId: string,
    readonly attempts: number,
    readonly reason: string,
  ) {
    super(`${kind} ${jobId} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}`);
  }
}

/**
 * Bytes could not be put on disk (no space, quota, I/O error, file size
 * limit, read-only file system): `file` was left as it was before the write
 * began (an atomic write) or cut back to its last whole line (an append).
 * `reason` is the system's code, e.g. ENOSPC; the CLI exits 1.
 */
export class WriteFailedError extends PowprimeError {
  readonly code = 'ERR_WRITE_FAILED';
  override readonly name: string = 'WriteFailedError';
  constructor(
    readonly file: string,
    readonly reason: string,
    outcome: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot write ${file}: ${reason}; ${outcome}`, options);
  }
}

/**
 * Another process held a shared file's lock for longer than this one would
 * wait, or holds it at all where nothing waits (`waited` false: a question
 * pipeline's state). `holder` says who, when known.
 */
export class FileLockedError extends PowprimeError {
  readonly code = 'ERR_FILE_LOCKED';
  override readonly name: string = 'FileLockedError';
  constructor(
    readonly file: string,
    readonly holder: string,
    waited = true,
  ) {
    super(`${file} is ${waited ? `held by ${holder} for too long` : `in use by ${holder}`}; wait for it to end or stop it`);
  }
}
