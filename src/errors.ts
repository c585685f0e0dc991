/** Errors the public API throws besides TypeError/RangeError for bad arguments. */

/** solvePow tried every candidate it was allowed to and none met the difficulty. */
export class PowExhaustedError extends Error {
  override readonly name = 'PowExhaustedError';
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
export class BackendUnavailableError extends Error {
  override readonly name = 'BackendUnavailableError';
  constructor(
    readonly backend: string,
    readonly reason: string,
  ) {
    super(`backend '${backend}' is unavailable: ${reason}`);
  }
}
