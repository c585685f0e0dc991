/**
 * The issuing half of proof of work: createChallenge makes a stateless token
 * (challenge-token.ts says its bytes) that verifySolution (challenge-verify.ts)
 * checks with one HMAC and one SHA-256. Browser-safe: randomness from
 * WebCrypto, the MAC on the project's own SHA-256, no Node module.
 */
import { MAX_DIFFICULTY, MIN_DIFFICULTY } from '../limits.ts';
import { argumentError, checkInteger } from '../validate.ts';
import { checkRequiredOptions, optionNames } from '../option-checks.ts';
import { macInto } from './challenge-hmac.ts';
import { checkAudience, checkKeys, checkNow, checkTtl, type ChallengeKey } from './challenge-options.ts';
import {
  FLAG_AUDIENCE,
  FLAG_BITS,
  HEADER_LENGTH,
  OFF_AUDIENCE,
  OFF_DIFFICULTY,
  OFF_EXPIRES,
  OFF_FLAGS,
  OFF_KEY_ID,
  OFF_SALT,
  SALT_LENGTH,
  TOKEN_BYTES,
  TOKEN_VERSION,
  encodeToken,
  writeUint48,
} from './challenge-token.ts';

export type { ChallengeKey } from './challenge-options.ts';

/** Bits of a whole SHA-256 digest: the most a difficulty in bits can ask. */
export const MAX_DIFFICULTY_BITS = 256;

/**
 * A challenge's difficulty, with its unit named: `difficulty` is leading '0'
 * hex characters of SHA-256(nonce‖solution) (the question service's rule),
 * `bits` leading zero bits. d hex digits are exactly 4d bits.
 */
export type ChallengeDifficulty = { unit: 'hex'; difficulty: number } | { unit: 'bits'; bits: number };

/** What a service hands its client: `{nonce, difficulty}` is the question service's config body. */
export type Challenge = ChallengeDifficulty & {
  /** The token itself: 100 base64url characters. The client hashes it as the prefix of nonce‖solution. */
  nonce: string;
  /** When the token stops being accepted, in ms since the epoch. */
  expiresAt: number;
};

export interface CreateChallengeOptions {
  /** The secret key, or a list whose first key signs (the others only verify: see verifySolution). */
  keys: ChallengeKey | readonly ChallengeKey[];
  /** Leading '0' hex characters, 0–64. Give this or `bits`. */
  difficulty?: number;
  /** Leading zero bits, 0–256. Give this or `difficulty`. */
  bits?: number;
  /** How long the token is accepted, in ms (default 16 minutes, the spec's validity). */
  ttlMs?: number;
  /** Binds the token to one place (a site, a route): verifySolution then needs the same audience. */
  audience?: string;
  /** The clock, in ms since the epoch (default Date.now()). */
  now?: number;
}

/** Every option of createChallenge: any other key is refused. */
const CREATE_CHALLENGE_OPTIONS = optionNames<CreateChallengeOptions>()(['keys', 'difficulty', 'bits', 'ttlMs', 'audience', 'now']);

/**
 * Issues a proof-of-work challenge whose nonce is a signed token: version,
 * key id, difficulty and its unit, expiry, 16 random bytes, the audience's
 * tag, and an HMAC-SHA-256 over all of them. Nothing is stored: the token
 * carries what verifySolution needs. Synchronous (the randomness is
 * `crypto.getRandomValues`, present in browsers and Node).
 */
export function createChallenge(options: CreateChallengeOptions): Challenge {
  const o = checkRequiredOptions('options', options, 'createChallenge', CREATE_CHALLENGE_OPTIONS, 'must be an object {keys, difficulty or bits}');
  const signer = checkKeys(o.keys)[0]!;
  if ((o.difficulty === undefined) === (o.bits === undefined)) throw argumentError(TypeError, 'options', 'must give exactly one of difficulty (hex digits) and bits');
  const inBits = o.bits !== undefined;
  const amount = inBits ? checkInteger('bits', o.bits, 0, MAX_DIFFICULTY_BITS) : checkInteger('difficulty', o.difficulty, MIN_DIFFICULTY, MAX_DIFFICULTY);
  const audience = checkAudience(o.audience);
  const now = checkNow(o.now);
  const expiresAt = now + checkTtl(o.ttlMs, now);

  const token = new Uint8Array(TOKEN_BYTES);
  token[0] = TOKEN_VERSION;
  token[OFF_KEY_ID] = signer.id;
  token[OFF_FLAGS] = (inBits ? FLAG_BITS : 0) | (audience ? FLAG_AUDIENCE : 0);
  token[OFF_DIFFICULTY] = amount >>> 8;
  token[OFF_DIFFICULTY + 1] = amount & 0xff;
  writeUint48(token, OFF_EXPIRES, expiresAt);
  globalThis.crypto.getRandomValues(token.subarray(OFF_SALT, OFF_SALT + SALT_LENGTH));
  if (audience) token.set(audience.tag, OFF_AUDIENCE);
  macInto(signer, token, HEADER_LENGTH, token, HEADER_LENGTH);
  const nonce = encodeToken(token);
  return inBits ? { nonce, unit: 'bits', bits: amount, expiresAt } : { nonce, unit: 'hex', difficulty: amount, expiresAt };
}
