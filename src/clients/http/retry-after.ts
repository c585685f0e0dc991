/**
 * How long a 429 bans a host: its Retry-After (whole seconds or an HTTP
 * date) when it has a readable one, else the spec's 40–60 minutes (60
 * assumed), and never more than a day, whatever a server says.
 */
import { DAY, MINUTE } from '../clock.ts';

/** Assumed length of a ban when the 429 carries no Retry-After (the spec says 40 to 60 minutes). */
export const DEFAULT_BAN_MS = 60 * MINUTE;
/** The longest ban honoured, whatever the Retry-After: the spec's bans last 40 to 60 minutes. */
export const MAX_BAN_MS = DAY;

/**
 * Retry-After (whole seconds, or an HTTP date) as ms since the epoch; a
 * missing or malformed value (a fraction, a negative number, text that is no
 * date) is `defaultMs` from now. Never more than MAX_BAN_MS away.
 */
export function banUntil(retryAfter: string | string[] | undefined, now: number, defaultMs = DEFAULT_BAN_MS): number {
  const v = (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter)?.trim();
  let until = now + defaultMs;
  if (v !== undefined) {
    // Date.parse reads "1.5" or "-1" as dates; an HTTP date starts with a day's name.
    const date = /^[A-Za-z]{3}/.test(v) ? Date.parse(v) : Number.NaN;
    if (/^\d+$/.test(v)) until = now + Number(v) * 1000;
    else if (!Number.isNaN(date)) until = Math.max(date, now);
  }
  return Math.min(until, now + MAX_BAN_MS);
}
