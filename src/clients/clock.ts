/** Time for the clients: the real clock, or one tests advance by hand, and the units of their periods. */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` (rejects with the signal's reason on abort). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** setTimeout's longest delay; a longer one overflows to 1 ms and would busy-spin. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const until = Date.now() + Math.max(0, ms);
      let t: NodeJS.Timeout;
      const onAbort = (): void => {
        clearTimeout(t);
        reject(signal!.reason);
      };
      // Waits longer than the timer's range (a Retry-After of months) go in steps.
      const arm = (): void => {
        const left = until - Date.now();
        if (left <= 0) {
          signal?.removeEventListener('abort', onAbort);
          resolve();
          return;
        }
        t = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      arm();
    }),
};

/** A clock whose sleep moves time forward at once: days of traffic in milliseconds. */
export class ManualClock implements Clock {
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.t += Math.max(0, ms);
    await Promise.resolve();
  }
}

/** Date's range: ±8.64e15 ms around the epoch. */
const MAX_DATE_MS = 8.64e15;

/**
 * An instant (ms since the epoch) in ISO 8601, or a plain note for one no
 * date can hold: times that come from a server or a saved file are never
 * formatted unchecked (toISOString throws "Invalid time value" on them).
 */
export function isoTime(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? new Date(ms).toISOString() : `(no valid time: ${ms})`;
}

/** A window's period as a message says it: "minute", "8 hours", "1.5 s". */
export function formatPeriod(ms: number): string {
  if (ms % DAY === 0) return ms === DAY ? 'day' : `${ms / DAY} days`;
  if (ms % HOUR === 0) return ms === HOUR ? 'hour' : `${ms / HOUR} hours`;
  if (ms % MINUTE === 0) return ms === MINUTE ? 'minute' : `${ms / MINUTE} minutes`;
  return ms === 1000 ? 'second' : `${ms / 1000} s`;
}
