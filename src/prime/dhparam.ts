/**
 * Diffie–Hellman parameters (p, g = 2) from the seeded safe-prime search, so
 * the same bits and seed always give the same parameters.
 *
 * p is the least safe prime ≡ 23 (mod 24) at or after the start point of
 * the search (bits, seed) at index 0, in its stream order: then p ≡ 7 (mod 8),
 * so 2 is a quadratic residue and generates the subgroup of prime order
 * q = (p − 1)/2 — the class that `openssl dhparam` produces for generator 2
 * and that its `-check` accepts. The sieve strikes the other half of the
 * candidates, so this costs what one safe prime does.
 */
import { DH_MAX_BITS, DH_MIN_BITS } from '../limits.ts';
import { checkOptions, optionNames } from '../option-checks.ts';
import { dhParamsDer, dhParamsPem } from './dh-pem.ts';
import { findSafePrime23Mod24 } from './search.ts';
import { parseBits, type SafePrimeSearchOptions } from './search-options.ts';

export interface DhParams {
  p: bigint;
  g: bigint;
  bits: number;
  seed: bigint;
  /** PKCS#3 DHParameter in PEM, as `openssl dhparam` writes it. */
  pem: string;
  der: Uint8Array;
  elapsedMs: number;
}

/** The options of generateDhParams: a search's but its stream (always 1, see below). */
export type DhParamsOptions = Omit<SafePrimeSearchOptions, 'stream'>;
export const DH_PARAMS_OPTIONS = optionNames<DhParamsOptions>()(['bits', 'seed', 'threads', 'backend', 'rounds', 'signal', 'onProgress']);

export async function generateDhParams(options: DhParamsOptions): Promise<DhParams> {
  const opts = checkOptions('options', options, 'generateDhParams', DH_PARAMS_OPTIONS) as SafePrimeSearchOptions;
  // The search takes smaller sizes; DH parameters do not.
  parseBits('bits', opts.bits, DH_MIN_BITS, DH_MAX_BITS);
  // Stream 1 always: the same bits and seed keep giving the parameters they
  // gave before stream 2 existed, and one index gains nothing from version 2's
  // progression of start points.
  const r = await findSafePrime23Mod24({ ...opts, stream: 1 });
  return {
    p: r.prime,
    g: 2n,
    bits: r.bits,
    seed: r.seed,
    pem: dhParamsPem(r.prime, 2n),
    der: dhParamsDer(r.prime, 2n),
    elapsedMs: r.elapsedMs,
  };
}
