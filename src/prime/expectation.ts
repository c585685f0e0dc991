/**
 * What a seeded safe-prime search expects to spend on a prime: the Fermat
 * tests its sieve lets through. The bench compares measured counts with it,
 * and long runs (moduli) state the work left by it rather than extrapolate
 * from the few primes found so far (their times are geometric: one lucky
 * prime says little).
 */
import { sievePrimes } from './small-primes.ts';

/** Twin-prime constant C2 = ∏_{r odd prime} (1 − 1/(r−1)²). */
const C2 = 0.6601618158468696;

/**
 * Fermat tests a safe prime of `bits` bits should need with a sieve to
 * `limit`: candidates p ≡ 11 (mod 12) are prime with q = (p−1)/2 with
 * probability 12·C2/(ln p)² (Hardy–Littlewood, given both are prime to 6), and
 * a fraction ∏_{5 ≤ r < B} (1 − 2/r) of them survives the sieve to the test.
 * The same for a search that keeps one class only (23 mod 24, ssh-keygen's
 * generator rule): the sieve strikes the other class's candidates in the
 * same proportion as its primes.
 */
export function expectedTestsPerPrime(bits: number, limit: number): number {
  const lnP = (bits - 0.5) * Math.LN2;
  // Exactly up to 2^23, then Mertens: ∏_{A≤r<B} (1 − 2/r) = (ln A / ln B)² to
  // within about 1/A (the deepest sieve's primes would not fit a table here).
  const exact = Math.min(limit, 1 << 23);
  let survive = 1;
  for (const r of sievePrimes(exact).primes) if (r >= 5) survive *= 1 - 2 / r;
  if (limit > exact) survive *= (Math.log(exact) / Math.log(limit)) ** 2;
  return (survive * lnP * lnP) / (12 * C2);
}
