/**
 * The life of one long API call on the pool (solvePow, a safe-prime search,
 * a range search): the caller's AbortSignal stops the shared search, progress
 * is reported at a fixed cadence, and both are undone when the call ends, so
 * neither a listener on the caller's signal nor a timer outlives the call.
 * One home, so PoW and primes stop and report alike.
 */
import { abortReason } from './validate.ts';

/** How often progress is reported: at most 4 times a second, as the API documents. */
const PROGRESS_MS = 250;

/** An aborted signal ends the call before it starts anything, with the signal's reason. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

export class RunLifecycle {
  private readonly timer: ReturnType<typeof setInterval> | undefined;

  /**
   * stop: called once when the signal aborts (sets the run's stop flag; the
   * run then winds down by itself). report: called every PROGRESS_MS until
   * close(); the timer does not keep the process alive.
   */
  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly stop: () => void,
    report?: () => void,
  ) {
    signal?.addEventListener('abort', stop, { once: true });
    this.timer = report ? setInterval(report, PROGRESS_MS) : undefined;
    // Browsers' timers are numbers, with nothing to unref.
    (this.timer as { unref?: () => void } | undefined)?.unref?.();
  }

  /** After the run: the signal's reason when it aborted, so a stopped run does not pass for a finished one. */
  throwIfAborted(): void {
    throwIfAborted(this.signal);
  }

  /** What a failed run throws: the signal's reason when it aborted (the stop caused the failure), else `err`. */
  failure(err: unknown): unknown {
    return this.signal?.aborted ? abortReason(this.signal) : err;
  }

  /** Ends the reports and the signal's hold on the run; call it in `finally`. */
  close(): void {
    clearInterval(this.timer);
    this.signal?.removeEventListener('abort', this.stop);
  }
}
