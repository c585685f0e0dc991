/**
 * Argument checks for the public boundary: each error names the argument, in
 * its message and as `argument` on the error, so the CLI can say which flag
 * carried the value (src/cli/args.ts) with the API's own words. The bounds
 * come from src/limits.ts.
 */
import { MAX_ROUNDS, MAX_THREADS, MIN_ROUNDS, MIN_THREADS } from './limits.ts';

/** A TypeError or RangeError about one named argument. */
export type ArgumentError = (TypeError | RangeError) & { argument: string };

/** `${name} ${text}`, as a TypeError or RangeError that remembers the argument's name. */
export function argumentError(kind: typeof TypeError | typeof RangeError, name: string, text: string): ArgumentError {
  return Object.assign(new kind(`${name} ${text}`), { argument: name });
}

export function isArgumentError(err: unknown): err is ArgumentError {
  return (err instanceof TypeError || err instanceof RangeError) && typeof (err as Partial<ArgumentError>).argument === 'string';
}

const SHORT_NUMBER = 1n << 64n;

/** A whole number as an error message names it: its digits when short, else its size (a p given as g would fill a screen). */
export function showNumber(n: bigint): string {
  const size = n < 0n ? -n : n;
  return size < SHORT_NUMBER ? String(n) : `a ${n < 0n ? 'negative ' : ''}${size.toString(2).length}-bit number`;
}

/**
 * A value as an error message quotes it: strings quoted (and cut at 40 characters), short bigints with
 * their n, long ones by size; an object by what it is ("an array of 2", "a Uint8Array of 32 bytes",
 * "an object", "a Promise"), never its contents, which may be large or secret.
 */
export function show(value: unknown): string {
  if (typeof value === 'bigint') return -SHORT_NUMBER < value && value < SHORT_NUMBER ? `${value}n` : showNumber(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'function') return 'a function';
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const kind = Object.prototype.toString.call(value).slice(8, -1);
  // 'an Error', 'an Int32Array', but 'a Uint8Array' (said you-int).
  const named = `${/^[AEIO]/.test(kind) ? 'an' : 'a'} ${kind}`;
  if (ArrayBuffer.isView(value)) return `${named} of ${value.byteLength} bytes`;
  return kind === 'Object' ? 'an object' : named;
}

/**
 * A service's address: an absolute http or https URL. The one check for every
 * way an address is given (a client's baseUrl, --base-url, a service's
 * environment variable), so each refuses the same addresses in the same words.
 * The value is quoted whole, not cut as show() cuts: the fault may be anywhere in it.
 */
export function checkHttpUrl(name: string, value: unknown): URL {
  let url: URL | undefined;
  try {
    url = new URL(String(value));
  } catch {
    // Not a URL at all: refused below with the rest.
  }
  if (url === undefined || !/^https?:$/.test(url.protocol)) throw argumentError(TypeError, name, `must be an absolute http(s) URL (got ${JSON.stringify(value)})`);
  return url;
}

export function checkString(name: string, value: unknown): string {
  if (typeof value !== 'string') throw argumentError(TypeError, name, `must be a string (got ${show(value)})`);
  return value;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string whose UTF-8 bytes are its characters: a lone surrogate would be encoded as U+FFFD, so what is hashed would not be the string. */
export function checkWellFormed(name: string, value: unknown): string {
  const s = checkString(name, value);
  const at = s.search(LONE_SURROGATE);
  if (at >= 0) throw argumentError(TypeError, name, `must be well-formed Unicode (a lone surrogate at index ${at}; its UTF-8 bytes would not be this string)`);
  return s;
}

export function checkInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number') throw argumentError(TypeError, name, `must be a number (got ${show(value)})`);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw argumentError(RangeError, name, `must be an integer from ${min} to ${max} (got ${show(value)})`);
  }
  return value;
}

export function checkOneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    const err = typeof value === 'string' ? RangeError : TypeError;
    throw argumentError(err, name, `must be one of ${allowed.map((a) => `'${a}'`).join(', ')} (got ${show(value)})`);
  }
  return value as T;
}

export function checkSignal(name: string, value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof AbortSignal)) throw argumentError(TypeError, name, `must be an AbortSignal (got ${show(value)})`);
  return value;
}

/** What an aborted operation rejects with: the signal's reason, or a standard AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

export function checkFunction<F>(name: string, value: unknown): F | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') throw argumentError(TypeError, name, `must be a function (got ${show(value)})`);
  return value as F;
}

/** A positive count given as a number or bigint. */
export function checkCount(name: string, value: unknown): bigint {
  if (typeof value === 'bigint') {
    if (value < 1n) throw argumentError(RangeError, name, `must be a whole number of at least 1 (got ${show(value)})`);
    return value;
  }
  if (typeof value !== 'number') throw argumentError(TypeError, name, `must be a number or bigint (got ${show(value)})`);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw argumentError(RangeError, name, `must be a whole number of at least 1 (got ${show(value)})`);
  }
  return BigInt(value);
}

/** A whole number given as a bigint, a decimal string or a 0x hex string. */
export function parseBigInt(name: string, value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw argumentError(RangeError, name, `must be a whole number below 2^53 when given as a number (got ${show(value)}); pass a bigint or a string`);
    return BigInt(value);
  }
  if (typeof value !== 'string') throw argumentError(TypeError, name, `must be a bigint, a decimal string or a 0x string (got ${show(value)})`);
  const t = value.trim();
  if (/^-?[0-9]+$/.test(t) || /^-?0x[0-9a-f]+$/i.test(t)) {
    return t.startsWith('-') ? -BigInt(t.slice(1)) : BigInt(t);
  }
  throw argumentError(RangeError, name, `is not a whole number: ${show(value)} (use decimal digits or 0x hex)`);
}

/** An optional non-negative integer option such as `rounds`. */
function checkOptionalInteger(name: string, value: unknown, min: number, max: number): number | undefined {
  return value === undefined ? undefined : checkInteger(name, value, min, max);
}

/** Pool threads for one call. */
export function checkThreads(name: string, value: unknown): number {
  return checkInteger(name, value, MIN_THREADS, MAX_THREADS);
}

/** Miller–Rabin rounds after Baillie–PSW; -1 (default by size) when absent. */
export function checkRounds(name: string, value: unknown): number {
  return checkOptionalInteger(name, value, MIN_ROUNDS, MAX_ROUNDS) ?? -1;
}
