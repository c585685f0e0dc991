/**
 * The two ways a rejection may go unhandled here, each named for its reason
 * and taking that reason as text (for the reader: nothing reads it at run
 * time), so a silenced failure always says why it may be silenced. No other
 * file writes `.catch(() => {})` (test/structure.test.ts).
 */

/**
 * For a promise kept and awaited later (or never, when whoever caused its
 * failure handles that): silences only Node's unhandled-rejection warning
 * meanwhile. Returns the same promise, so an awaiter still sees the rejection.
 */
export function markHandled<T>(promise: Promise<T>, _awaitedBy: string): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/**
 * For cleanup whose failure changes nothing (the connection is already gone,
 * the outcome is not wanted): settles when `promise` does and never rejects.
 */
export function bestEffort(promise: PromiseLike<unknown>, _why: string): Promise<void> {
  return Promise.resolve(promise).then(
    () => undefined,
    () => undefined,
  );
}
