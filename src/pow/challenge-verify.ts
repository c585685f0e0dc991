/**
 * The checking half: verifySolution accepts a solved token once. Its cost is bounded before any
 * work: every field's size is capped first, then one HMAC (over 43 bytes: two compressions) and
 * one SHA-256 (two or three), and only then the replay store, the one step that may wait (Redis).
 */
import { ChallengeError } from './challenge-error.ts';
import { MAX_DIFFICULTY, MAX_SOLUTION_LENGTH } from '../limits.ts';
import { argumentError, show } from '../validate.ts';
import { checkRequiredOptions, optionNames } from '../option-checks.ts';
import { macMatches } from './challenge-hmac.ts';
import { checkAudience, checkKeys, checkNow, type ChallengeKey } from './challenge-options.ts';
import { meetsBits } from './challenge-work.ts';
import { MAX_DIFFICULTY_BITS, type ChallengeDifficulty } from './challenge.ts';
import {
  AUDIENCE_TAG_LENGTH,
  FLAG_AUDIENCE,
  FLAG_BITS,
  HEADER_LENGTH,
  NONCE_LENGTH,
  OFF_AUDIENCE,
  OFF_DIFFICULTY,
  OFF_EXPIRES,
  OFF_FLAGS,
  OFF_KEY_ID,
  TOKEN_BYTES,
  TOKEN_VERSION,
  decodeToken,
  readUint48,
  replayId,
} from './challenge-token.ts';
import { MemoryReplayStore, type ReplayStore } from './replay-store.ts';
import { bestEffort } from '../ignored-rejection.ts';

/** What the client sent back: the nonce it was given and its solution. Untrusted: anything here is refused with a ChallengeError. */
export interface ChallengeProof {
  nonce: unknown;
  solution: unknown;
}

export interface VerifySolutionOptions {
  /** The key list: any of them verifies (the first is the one createChallenge signs with). */
  keys: ChallengeKey | readonly ChallengeKey[];
  /** The audience this verifier stands for. Must equal the token's: none accepts only tokens issued without one. */
  audience?: string;
  /** Where used tokens are remembered (default: one MemoryReplayStore per process). */
  replayStore?: ReplayStore;
  /** The clock, in ms since the epoch (default Date.now()). */
  now?: number;
}

/** Every option of verifySolution: any other key is refused. */
const VERIFY_SOLUTION_OPTIONS = optionNames<VerifySolutionOptions>()(['keys', 'audience', 'replayStore', 'now']);

export type VerifiedSolution = ChallengeDifficulty & {
  ok: true;
  /** The token's expiry, in ms since the epoch. */
  expiresAt: number;
  /** The audience the token was bound to, or undefined. */
  audience: string | undefined;
};

let defaultStore: MemoryReplayStore | undefined;
const token = new Uint8Array(TOKEN_BYTES);
const SOLUTION_FORM = new RegExp(`^[0-9]{1,${MAX_SOLUTION_LENGTH}}$`);

/** Every check but the replay store's, in the order that costs an attacker most and us least. */
function check(proof: unknown, opts: VerifySolutionOptions): { result: VerifiedSolution; store: ReplayStore; id: string; now: number } {
  const o = checkRequiredOptions('options', opts, 'verifySolution', VERIFY_SOLUTION_OPTIONS, 'must be an object {keys, …}');
  const keys = checkKeys(o.keys);
  const expected = checkAudience(o.audience);
  const store = o.replayStore ?? (defaultStore ??= new MemoryReplayStore());
  if (store === null || typeof store !== 'object' || typeof store.add !== 'function') throw argumentError(TypeError, 'replayStore', `must have an add(id, expiresAt, now) method (got ${show(store)})`);
  const now = checkNow(o.now);

  if (proof === null || typeof proof !== 'object') throw new ChallengeError('malformed', 'expected {nonce, solution}');
  let nonce: unknown;
  let solution: unknown;
  try {
    // A getter or a Proxy in what the client sent may throw: that is a malformed proof, not our error.
    ({ nonce, solution } = proof as ChallengeProof);
  } catch {
    throw new ChallengeError('malformed', 'expected {nonce, solution}');
  }
  if (typeof nonce !== 'string' || typeof solution !== 'string') throw new ChallengeError('malformed', 'nonce and solution must be strings');
  // Sizes first: nothing longer than a token or a solution is read any further.
  if (nonce.length > NONCE_LENGTH) throw new ChallengeError('oversized', `the nonce is longer than ${NONCE_LENGTH} characters`);
  if (solution.length > MAX_SOLUTION_LENGTH) throw new ChallengeError('oversized', `the solution is longer than ${MAX_SOLUTION_LENGTH} digits`);
  if (nonce.length !== NONCE_LENGTH || !decodeToken(nonce, token)) throw new ChallengeError('malformed', 'the nonce is not a token');
  if (!SOLUTION_FORM.test(solution)) throw new ChallengeError('malformed', `the solution must be 1 to ${MAX_SOLUTION_LENGTH} digits`);
  if (token[0] !== TOKEN_VERSION) throw new ChallengeError('malformed', `unknown token version ${token[0]}`);

  // Only the keys carrying the token's id are tried, in list order (a shared id is a 1-in-256 chance).
  let known = false;
  let authentic = false;
  for (const key of keys) {
    if (key.id !== token[OFF_KEY_ID]) continue;
    known = true;
    if (macMatches(key, token, HEADER_LENGTH, token, HEADER_LENGTH)) {
      authentic = true;
      break;
    }
  }
  if (!known) throw new ChallengeError('unknown-key', 'no key of the list made this token');
  if (!authentic) throw new ChallengeError('forged', 'the MAC does not match');

  // From here the fields are the issuer's own.
  const flags = token[OFF_FLAGS]!;
  const amount = (token[OFF_DIFFICULTY]! << 8) | token[OFF_DIFFICULTY + 1]!;
  const inBits = (flags & FLAG_BITS) !== 0;
  if (flags & ~(FLAG_BITS | FLAG_AUDIENCE) || amount > (inBits ? MAX_DIFFICULTY_BITS : MAX_DIFFICULTY)) throw new ChallengeError('malformed', 'flags or difficulty out of range');
  const expiresAt = readUint48(token, OFF_EXPIRES);
  if (now >= expiresAt) throw new ChallengeError('expired', `expired ${now - expiresAt} ms ago`);
  const bound = (flags & FLAG_AUDIENCE) !== 0;
  if (bound !== (expected !== undefined)) throw new ChallengeError('wrong-audience', bound ? 'the token is bound to an audience and none was given' : 'the token has no audience and one is required');
  if (expected !== undefined) {
    let diff = 0;
    for (let i = 0; i < AUDIENCE_TAG_LENGTH; i++) diff |= token[OFF_AUDIENCE + i]! ^ expected.tag[i]!;
    if (diff !== 0) throw new ChallengeError('wrong-audience', 'the token was issued for another audience');
  }
  if (!meetsBits(nonce, solution, inBits ? amount : 4 * amount)) throw new ChallengeError('insufficient-work', `the hash does not start with ${amount} zero ${inBits ? 'bits' : 'hex digits'}`);
  const difficulty: ChallengeDifficulty = inBits ? { unit: 'bits', bits: amount } : { unit: 'hex', difficulty: amount };
  return { result: { ok: true, ...difficulty, expiresAt, audience: expected?.audience }, store, id: replayId(nonce), now };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function';
}

function replayed(): ChallengeError {
  return new ChallengeError('replayed', 'this token was used before');
}

function recorded(added: unknown, result: VerifiedSolution): VerifiedSolution {
  if (added !== true) throw replayed();
  return result;
}

/** The store's own ChallengeError ('busy') as it is; anything else it throws is 'store-failed'. */
function asStoreError(err: unknown): ChallengeError {
  if (err instanceof ChallengeError) return err;
  let why = 'the store threw a value that cannot be shown';
  try {
    why = err instanceof Error ? err.message : String(err);
  } catch {}
  return new ChallengeError('store-failed', why, { cause: err });
}

/**
 * Accepts a solved token once: resolves `{ok: true, …}`, or rejects with a
 * ChallengeError whose `reason` says which check refused it. The checks, in
 * order: sizes (before any hashing), form, key id, MAC (compared in constant
 * time), expiry, audience, the proof of work, then the replay store, which
 * records the token (first use) or refuses it ('replayed'). Everything in
 * `proof` is the client's, so nothing there throws anything but a
 * ChallengeError; the options are the service's, and a mistake there is a
 * TypeError or RangeError naming it. Asynchronous because a shared store
 * (Redis) is; with an in-memory store, verifySolutionSync gives the same
 * answer without a promise.
 */
export function verifySolution(proof: ChallengeProof, options: VerifySolutionOptions): Promise<VerifiedSolution> {
  let checked: ReturnType<typeof check>;
  let added: unknown;
  try {
    checked = check(proof, options);
  } catch (err) {
    return Promise.reject(err);
  }
  const { result, store, id, now } = checked;
  try {
    added = store.add(id, result.expiresAt, now);
  } catch (err) {
    return Promise.reject(asStoreError(err));
  }
  // A synchronous store's answer is not awaited: a service's await is the only tick spent.
  if (!isThenable(added)) return added === true ? Promise.resolve(result) : Promise.reject(replayed());
  return Promise.resolve(added).then(
    (a: unknown) => recorded(a, result),
    (err: unknown) => {
      throw asStoreError(err);
    },
  );
}

/** verifySolution for a synchronous replay store (the default, or a MemoryReplayStore): a TypeError if the store returns a promise (the token is then spent). */
export function verifySolutionSync(proof: ChallengeProof, options: VerifySolutionOptions): VerifiedSolution {
  const { result, store, id, now } = check(proof, options);
  let added: unknown;
  try {
    added = store.add(id, result.expiresAt, now);
  } catch (err) {
    throw asStoreError(err);
  }
  if (isThenable(added)) {
    // The TypeError is the answer; the store's outcome, a rejection included, is not wanted.
    void bestEffort(added, 'the TypeError below is the answer');
    throw argumentError(TypeError, 'replayStore', 'returned a promise: use verifySolution (asynchronous) with this store');
  }
  return recorded(added, result);
}
