/**
 * What `openssl dhparam -check` checks of PKCS#3 parameters (p, g), with
 * the same verdicts: 1 < g < p − 1, p prime, p safe ((p − 1)/2 prime).
 * OpenSSL does not ask more of g without a q in the file, and neither does
 * this; `generatesSubgroup` says the one thing more worth knowing.
 */
import { modPow } from './bigint.ts';
import { isProbablePrime, isSafePrime } from './check.ts';

/** The problems openssl's check would report, in its order; empty when the parameters are ok. */
export async function dhParamsProblems(p: bigint, g: bigint): Promise<string[]> {
  const problems: string[] = [];
  if (g <= 1n || g >= p - 1n) problems.push('g is not a suitable generator (it must lie strictly between 1 and p - 1)');
  if (p < 5n || !(await isProbablePrime(p))) problems.push('p is not prime');
  else if (!(await isSafePrime(p))) problems.push('p is not a safe prime ((p - 1)/2 is not prime)');
  return problems;
}

/**
 * For a safe prime p = 2q + 1: whether g lies in the subgroup of prime order
 * q (g^q ≡ 1 mod p). If not, g generates the whole group, and a shared
 * secret g^xy gives away whether xy is even: one bit.
 */
export function generatesSubgroup(p: bigint, g: bigint): boolean {
  return modPow(g, (p - 1n) / 2n, p) === 1n;
}
