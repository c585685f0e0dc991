/** The seed of a safe-prime search: taken as the API and CLI give it, or drawn at random. */
import { webcrypto } from 'node:crypto';
import { SEED_LIMIT } from '../limits.ts';
import { argumentError, parseBigInt, showNumber } from '../validate.ts';

/** A seed as the API and CLI take it: 0 ≤ seed < 2^256, as a bigint or decimal / 0x string. */
export function parseSeed(name: string, value: unknown): bigint {
  const seed = parseBigInt(name, value);
  if (seed < 0n || seed >= SEED_LIMIT) throw argumentError(RangeError, name, `must be from 0 to 2^256 - 1 (got ${showNumber(seed)})`);
  return seed;
}

/** A fresh 128-bit seed from crypto.getRandomValues. */
export function randomSeed(): bigint {
  const b = webcrypto.getRandomValues(new Uint8Array(16));
  return BigInt(`0x${Buffer.from(b).toString('hex')}`);
}
