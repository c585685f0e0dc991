/**
 * ChallengeError: why verifySolution refused a proof-of-work token, one code
 * for every refusal (a service answers them all alike) and a reason for each.
 */
import { PowprimeError } from '../errors.ts';

/** Why verifySolution refused a proof-of-work token (see ChallengeError). */
export type ChallengeRefusal =
  /** The nonce or solution is not of the token's or the spec's form (not a string, wrong alphabet or length, unknown version). */
  | 'malformed'
  /** The nonce or solution is longer than a token or a solution can be: refused before anything was hashed. */
  | 'oversized'
  /** No key of the list has the token's key id (the key was rotated out, or the token is not ours). */
  | 'unknown-key'
  /** The MAC does not match: the token was altered, spliced or made without the key. */
  | 'forged'
  /** The token's expiry has passed. */
  | 'expired'
  /** The token was issued for another audience, or with none where one is required (or the reverse). */
  | 'wrong-audience'
  /** SHA-256(nonce‖solution) does not start with the difficulty's zeros. */
  | 'insufficient-work'
  /** The token was used before: each is good for one request. */
  | 'replayed'
  /** The replay store is full of unexpired tokens and cannot record this one; try later. */
  | 'busy'
  /** The replay store failed (Redis unreachable, say); `cause` says how. */
  | 'store-failed';

/**
 * verifySolution refused a token or its solution. One code for every refusal
 * (a service answers them all alike, 401); `reason` says which check failed.
 * Only the replay store's troubles ('busy', 'store-failed') are transient: the
 * same token may pass once the store has room or is back.
 */
export class ChallengeError extends PowprimeError {
  readonly code = 'ERR_CHALLENGE_REFUSED';
  override readonly name: string = 'ChallengeError';
  override readonly transient: boolean;
  constructor(
    readonly reason: ChallengeRefusal,
    detail?: string,
    options?: { cause?: unknown },
  ) {
    super(`proof-of-work token refused (${reason})${detail ? `: ${detail}` : ''}`, options);
    this.transient = reason === 'busy' || reason === 'store-failed';
  }
}
