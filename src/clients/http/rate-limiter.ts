/**
 * Client-side rate limits that never earn a ban. Every window the spec gives
 * for a route (e.g. 1/min, 8/hour, 16/day) is enforced with a safety margin
 * (the spec suggests sleeping 1.1× the limit), a call is recorded — and the
 * record saved atomically — before it is sent, so a restart never spends the
 * same budget twice, and a 429 bans the whole host until its Retry-After (or
 * the spec's 40–60 minutes: 60 are assumed).
 */
import type { Clock } from '../clock.ts';
import { writeFileAtomic, readJsonState } from './state-file.ts';
import { RateLimitWaitError } from '../errors.ts';

export interface Window {
  /** Calls allowed per period. */
  limit: number;
  periodMs: number;
}

export type Limits = Record<string, Window[]>;

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** Assumed length of a ban when the 429 carries no Retry-After (the spec says 40 to 60 minutes). */
export const DEFAULT_BAN_MS = 60 * MINUTE;

interface State {
  calls: Record<string, number[]>;
  bannedUntil: number;
  /** The route whose 429 started the ban (the whole host is banned, whatever route waits). */
  bannedBy?: string;
}

export interface AcquireOptions {
  signal?: AbortSignal;
  /** Longest wait accepted before RateLimitWaitError (default: no bound). */
  maxWaitMs?: number;
  /** Told before each wait: when the call will go out, and why it waits. */
  onWait?: (until: number, route: string, reason: string) => void;
}

export class RateLimiter {
  private state: State = { calls: {}, bannedUntil: 0 };

  constructor(
    private readonly limits: Limits | 'off',
    private readonly clock: Clock,
    private readonly file?: string,
    /** Periods are stretched by this factor. */
    private readonly safety = 1.1,
  ) {
    if (file) this.state = { calls: {}, bannedUntil: 0, ...(readJsonState(file, 'set-aside') as Partial<State> | undefined) };
  }

  /** When `route` may next be called (ms since the epoch; now if at once). */
  nextSlot(route: string): number {
    const now = this.clock.now();
    let at = Math.max(now, this.state.bannedUntil);
    if (this.limits === 'off') return at;
    const calls = this.state.calls[route] ?? [];
    for (const w of this.limits[route] ?? []) {
      if (calls.length >= w.limit) at = Math.max(at, calls[calls.length - w.limit]! + Math.ceil(w.periodMs * this.safety));
    }
    return at;
  }

  /** Why `route` cannot go out now: the host ban (and which route earned it), or which of its own limits. */
  waitReason(route: string): string {
    const at = this.nextSlot(route);
    if (at === this.state.bannedUntil && at > this.clock.now()) {
      return `the host is banned until ${new Date(at).toISOString()} after a 429 on ${this.state.bannedBy ?? 'an earlier call'}`;
    }
    const w = this.limits === 'off' ? undefined : (this.limits[route] ?? []).find((x) => (this.state.calls[route] ?? []).length >= x.limit);
    return `the ${route} limit${w ? ` of ${w.limit} per ${formatPeriod(w.periodMs)}` : ''} is used up until ${new Date(at).toISOString()}`;
  }

  /** Waits for a slot of `route`, then records the call (saved before returning). */
  async acquire(route: string, opts: AcquireOptions = {}): Promise<void> {
    for (;;) {
      const at = this.nextSlot(route);
      const wait = at - this.clock.now();
      if (wait <= 0) break;
      if (opts.maxWaitMs !== undefined && wait > opts.maxWaitMs) {
        throw new RateLimitWaitError(route, at, `${this.waitReason(route)}, longer than the ${Math.round(opts.maxWaitMs / 1000)} s allowed`);
      }
      opts.onWait?.(at, route, this.waitReason(route));
      await this.clock.sleep(wait, opts.signal);
    }
    const now = this.clock.now();
    const longest = this.limits === 'off' ? 0 : Math.max(0, ...(this.limits[route] ?? []).map((w) => w.periodMs * this.safety));
    const calls = (this.state.calls[route] ?? []).filter((t) => t > now - longest);
    calls.push(now);
    this.state.calls[route] = calls;
    this.save();
  }

  /** After a 429 on `route`: nothing goes to the host before `until`. */
  ban(until: number, route: string): void {
    if (until > this.state.bannedUntil) {
      this.state.bannedUntil = until;
      this.state.bannedBy = route;
      this.save();
    }
  }

  private save(): void {
    if (this.file) writeFileAtomic(this.file, JSON.stringify(this.state));
  }
}

/** Retry-After (seconds or an HTTP date) as ms since the epoch, or the default ban. */
export function banUntil(retryAfter: string | string[] | undefined, now: number): number {
  const v = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  if (v !== undefined) {
    if (/^\d+$/.test(v.trim())) return now + Number(v.trim()) * 1000;
    const date = Date.parse(v);
    if (!Number.isNaN(date)) return Math.max(date, now);
  }
  return now + DEFAULT_BAN_MS;
}

function formatPeriod(ms: number): string {
  if (ms % DAY === 0) return ms === DAY ? 'day' : `${ms / DAY} days`;
  if (ms % HOUR === 0) return ms === HOUR ? 'hour' : `${ms / HOUR} hours`;
  if (ms % MINUTE === 0) return ms === MINUTE ? 'minute' : `${ms / MINUTE} minutes`;
  return ms === 1000 ? 'second' : `${ms / 1000} s`;
}
