/**
 * Server-side rate limiting for the fake services: exact windows, 429 and a
 * temporary address ban. The fakes take their limits from the specs on their
 * own, never from the clients' tables, so a client whose table drifted from
 * the spec meets the server's 429 in the tests.
 */
import type { Clock } from '../clients/clock.ts';
import type { FakeResponse } from './http-server.ts';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** At most `limit` calls in any `periodMs`. */
interface ServerWindow {
  limit: number;
  periodMs: number;
}

export type ServerLimitTable = Record<string, ServerWindow[]>;

export class ServerLimits {
  private calls = new Map<string, number[]>();
  private banned = new Map<string, number>();
  /** Every 429 sent, for tests to count. */
  readonly refusals: { route: string; at: number }[] = [];

  constructor(
    private readonly windows: ServerLimitTable,
    private readonly banMs: number,
    private readonly sendRetryAfter: boolean,
  ) {}

  /** A 429 response if this call is over a limit (or the address is banned), else null (and the call counts). */
  check(route: string, address: string, clock: Clock): FakeResponse | null {
    const now = clock.now();
    const until = this.banned.get(address) ?? 0;
    const refuse = (): FakeResponse => {
      this.refusals.push({ route, at: now });
      const retry = Math.ceil(((this.banned.get(address) ?? now) - now) / 1000);
      return {
        status: 429,
        headers: this.sendRetryAfter ? { 'retry-after': String(retry) } : {},
        body: { error: 'You are rate limited; please retry later.' },
      };
    };
    if (until > now) return refuse();
    const key = `${address} ${route}`;
    const calls = (this.calls.get(key) ?? []).filter((t) => t > now - Math.max(...(this.windows[route] ?? []).map((w) => w.periodMs), 0));
    for (const w of this.windows[route] ?? []) {
      if (calls.filter((t) => t > now - w.periodMs).length >= w.limit) {
        this.banned.set(address, now + this.banMs);
        return refuse();
      }
    }
    calls.push(now);
    this.calls.set(key, calls);
    return null;
  }
}
