/**
 * Diffie–Hellman parameters (p, g = 2) from the seeded safe-prime search, so
 * the same bits and seed always give the same parameters.
 *
 * p is the first safe prime of the search (bits, seed), in index order, with
 * p ≡ 23 (mod 24): then p ≡ 7 (mod 8), so 2 is a quadratic residue and
 * generates the subgroup of prime order q = (p − 1)/2 — the class that
 * `openssl dhparam` produces for generator 2 and that its `-check` accepts.
 * About half of all safe primes are in it, so this costs two primes on average.
 */
import { checkOptions } from '../validate.ts';
import { InternalError } from '../errors.ts';
import { dhParamsDer, dhParamsPem } from './dh-pem.ts';
import { searchSafePrimes, type SafePrimeSearchOptions } from './search.ts';

/** DH below 512 bits is broken outright; OpenSSL refuses it too. */
export const DH_MIN_BITS = 512;
export const DH_MAX_BITS = 16384;
/** Indexes tried before giving up: each misses with probability 1/2, so this never happens. */
const MAX_TRIES = 256n;

export interface DhParams {
  p: bigint;
  g: bigint;
  bits: number;
  seed: bigint;
  /** The safe-prime index of the search that p is. */
  index: bigint;
  /** PKCS#3 DHParameter in PEM, as `openssl dhparam` writes it. */
  pem: string;
  der: Uint8Array;
  elapsedMs: number;
}

export async function generateDhParams(options: SafePrimeSearchOptions): Promise<DhParams> {
  const opts = checkOptions('options', options) as SafePrimeSearchOptions;
  const bits = opts.bits;
  if (typeof bits === 'number' && Number.isInteger(bits) && (bits < DH_MIN_BITS || bits > DH_MAX_BITS)) {
    throw new RangeError(`bits must be an integer from ${DH_MIN_BITS} to ${DH_MAX_BITS} for DH parameters (got ${bits})`);
  }
  const started = performance.now();
  for await (const r of searchSafePrimes({ ...opts, count: MAX_TRIES })) {
    if (r.prime % 24n !== 23n) continue;
    return {
      p: r.prime,
      g: 2n,
      bits: r.bits,
      seed: r.seed,
      index: r.index,
      pem: dhParamsPem(r.prime, 2n),
      der: dhParamsDer(r.prime, 2n),
      elapsedMs: performance.now() - started,
    };
  }
  throw new InternalError(`no safe prime ≡ 23 (mod 24) among the first ${MAX_TRIES} of the search`);
}
