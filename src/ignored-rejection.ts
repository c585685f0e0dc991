/**
 * The ways a failure may go unheard here, each named for its reason and
 * taking that reason as text (for the reader: nothing reads it at run time),
 * so a silenced failure always says why it may be silenced: two for a
 * rejection, one for an emitter's 'error' events. No other file writes
 * `.catch(() => {})` or `.on('error', () => {})` (test/structure.test.ts).
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

/**
 * For an emitter whose 'error' events say nothing that is not said another
 * way (each awaited call on it rejects with the same error, another listener
 * reports it, or there is nowhere left to say it): keeps them from ending the
 * process, as an 'error' event with no listener would. Returns the emitter.
 */
export function ignoreErrorEvents<E extends { on(event: 'error', listener: (err: Error) => void): unknown }>(emitter: E, _why: string): E {
  emitter.on('error', () => {});
  return emitter;
}
