/**
 * Small independent number theory for the tests, written once: oracles that
 * share no code with powprime (trial division, node:crypto's checkPrime, a
 * textbook Miller–Rabin used only to confirm that listed pseudoprimes are
 * what the literature says they are) and inputs whose nature is known by
 * construction (products of primes node:crypto confirms, seeded random odd
 * numbers).
 */
import { checkPrimeSync } from 'node:crypto';

export function textbookPowMod(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r;
}

/** n passes the strong probable-prime test to base a. */
export function isStrongProbablePrime(n: bigint, a: bigint): boolean {
  let d = n - 1n;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  let x = textbookPowMod(a, d, n);
  if (x === 1n || x === n - 1n) return true;
  for (let r = 1; r < s; r++) {
    x = (x * x) % n;
    if (x === n - 1n) return true;
  }
  return false;
}

export function smallestFactor(n: bigint, limit = 1_000_000n): bigint | null {
  for (let p = 2n; p <= limit && p * p <= n; p++) if (n % p === 0n) return p;
  return null;
}

/** Chernick Carmichael numbers (6k+1)(12k+1)(18k+1) with all three factors prime, near the given size. */
export function chernickCarmichaels(kStart: bigint, howMany: number): bigint[] {
  const out: bigint[] = [];
  for (let k = kStart; out.length < howMany; k++) {
    const f = [6n * k + 1n, 12n * k + 1n, 18n * k + 1n];
    if (f.every((x) => checkPrimeSync(x))) out.push(f[0]! * f[1]! * f[2]!);
  }
  return out;
}

/** Trial division: the oracle for numbers small enough to divide out. */
export function isPrimeByTrialDivision(n: number): boolean {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}

/**
 * p and (p − 1)/2 both prime by node:crypto, with OpenSSL's own round count
 * (OpenSSL 3, which every supported Node bundles: 64 Miller–Rabin rounds up to
 * 2048 bits, 128 above), at least as many as any suite asked for before.
 */
export function isSafePrimeByNodeCrypto(p: bigint): boolean {
  return checkPrimeSync(p) && checkPrimeSync((p - 1n) / 2n);
}

/** An odd number of exactly `bits` bits, its other bits from `next` (a seeded generator of [0, 1)). */
export function randomOdd(bits: number, next: () => number): bigint {
  let n = 1n;
  for (let i = 1; i < bits; i++) n = (n << 1n) | (next() < 0.5 ? 1n : 0n);
  return n | 1n;
}
