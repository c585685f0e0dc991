/**
 * The prime registry's TOTP: RFC 6238/4226 over HMAC-SHA3-512 with a 256-second
 * period. The spec does not show the code length, the truncation or what the
 * `ts` of GET /totp means; the defaults here (6 digits, RFC 4226 dynamic
 * truncation, counter = floor((now − t0) / period) with t0 = ts) are options.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha3_512 } from '@noble/hashes/sha3.js';
import { checkRequiredOptions, optionNames } from '../../option-checks.ts';

export interface TotpOptions {
  /** Reference time in UNIX seconds (default reading: the `ts` from GET /totp). */
  t0: number;
  /** Current time in UNIX seconds. */
  now: number;
  digits?: number;
  period?: number;
}

/** Every option of totpCode and totpCounter: any other key is refused. */
export const TOTP_OPTIONS = optionNames<TotpOptions>()(['t0', 'now', 'digits', 'period']);

/** The checked options: t0 and now finite UNIX seconds, a positive integer period. */
function checkTotp(where: string, opts: TotpOptions): { t0: number; now: number; period: number } {
  checkRequiredOptions('opts', opts, where, TOTP_OPTIONS, 'must be {t0, now}');
  for (const k of ['t0', 'now'] as const) {
    if (typeof opts[k] !== 'number' || !Number.isFinite(opts[k])) throw new TypeError(`${k} must be a finite number of UNIX seconds`);
  }
  const period = opts.period ?? 256;
  if (!Number.isInteger(period) || period < 1) throw new RangeError(`period must be a positive integer (got ${period})`);
  return { t0: opts.t0, now: opts.now, period };
}

export function totpCounter(opts: TotpOptions): number {
  return counterOf(checkTotp('totpCounter', opts));
}

function counterOf(o: { t0: number; now: number; period: number }): number {
  return Math.floor((o.now - o.t0) / o.period);
}

export function totpCode(secret: Uint8Array, opts: TotpOptions): string {
  if (!(secret instanceof Uint8Array)) throw new TypeError('secret must be a Uint8Array');
  const checked = checkTotp('totpCode', opts);
  const digits = opts.digits ?? 6;
  if (!Number.isInteger(digits) || digits < 1 || digits > 10) throw new RangeError(`digits must be an integer from 1 to 10 (got ${digits})`);
  const counter = counterOf(checked);
  if (counter < 0) throw new RangeError(`now (${opts.now}) is before t0 (${opts.t0})`);
  const msg = new Uint8Array(8);
  new DataView(msg.buffer).setBigUint64(0, BigInt(counter));
  const h = hmac(sha3_512, secret, msg);
  const o = h[h.length - 1]! & 0x0f;
  const bin = ((h[o]! & 0x7f) << 24) | (h[o + 1]! << 16) | (h[o + 2]! << 8) | h[o + 3]!;
  return String(bin % 10 ** digits).padStart(digits, '0');
}
