/**
 * The checks of createChallenge's and verifySolution's options (the
 * service's own configuration: a mistake there is a TypeError or RangeError
 * naming it, never a refused token), and the caches that keep a key's pad
 * states and an audience's tag between calls.
 */
import { sha256 } from '../hash/sha256.ts';
import { argumentError, checkInteger, checkWellFormed, show } from '../validate.ts';
import { macKey, type MacKey } from './challenge-hmac.ts';
import { AUDIENCE_TAG_LENGTH } from './challenge-token.ts';

/** A secret key: bytes, or text (its UTF-8 bytes). At least 16 bytes. */
export type ChallengeKey = Uint8Array | string;

const MIN_KEY_BYTES = 16;
const MAX_KEY_BYTES = 1024;
/** Keys in one list: the signing key and the ones being rotated out. */
const MAX_KEYS = 16;
const MAX_AUDIENCE_LENGTH = 256;
/** The spec's token validity. */
const DEFAULT_TTL_MS = 16 * 60_000;
const MAX_TTL_MS = 366 * 24 * 3_600_000;
/** The expiry is six bytes of the token. */
const MAX_EXPIRY = 2 ** 48 - 1;

const encoder = new TextEncoder();

function checkKey(name: string, key: unknown): MacKey {
  let length: number;
  if (typeof key === 'string') length = encoder.encode(checkWellFormed(name, key)).length;
  else if (key instanceof Uint8Array) length = key.length;
  else throw argumentError(TypeError, name, `must be a Uint8Array or a string (got ${show(key)})`);
  if (length < MIN_KEY_BYTES || length > MAX_KEY_BYTES) throw argumentError(RangeError, name, `must be ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes long (got ${length}): use 32 random bytes`);
  return macKey(key as ChallengeKey);
}

/** `keys`: one key or a list of them; the first signs, every one verifies. */
export function checkKeys(value: unknown): MacKey[] {
  if (!Array.isArray(value)) return [checkKey('keys', value)];
  if (value.length === 0 || value.length > MAX_KEYS) throw argumentError(RangeError, 'keys', `must hold 1 to ${MAX_KEYS} keys (got ${value.length})`);
  return value.map((k, i) => checkKey(`keys[${i}]`, k));
}

const tags = new Map<string, Uint8Array>();
const MAX_TAGS = 256;

/** `audience`: undefined, or 1–256 characters of well-formed text; returned with its tag. */
export function checkAudience(value: unknown): { audience: string; tag: Uint8Array } | undefined {
  if (value === undefined) return undefined;
  const audience = checkWellFormed('audience', value);
  if (audience.length === 0 || audience.length > MAX_AUDIENCE_LENGTH) throw argumentError(RangeError, 'audience', `must be 1 to ${MAX_AUDIENCE_LENGTH} characters (got ${audience.length})`);
  let tag = tags.get(audience);
  if (tag === undefined) {
    if (tags.size >= MAX_TAGS) tags.clear();
    tags.set(audience, (tag = sha256(encoder.encode(audience)).slice(0, AUDIENCE_TAG_LENGTH)));
  }
  return { audience, tag };
}

/** `now`: a clock reading in ms since the epoch (tests pass their own), or Date.now(). */
export function checkNow(value: unknown): number {
  return value === undefined ? Date.now() : checkInteger('now', value, 0, MAX_EXPIRY);
}

export function checkTtl(value: unknown, now: number): number {
  const ttl = value === undefined ? DEFAULT_TTL_MS : checkInteger('ttlMs', value, 1, MAX_TTL_MS);
  if (now + ttl > MAX_EXPIRY) throw argumentError(RangeError, 'now', `plus ttlMs must stay below 2^48 ms (got ${show(now)})`);
  return ttl;
}
