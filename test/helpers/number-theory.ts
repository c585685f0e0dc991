/**
 * Small independent number theory for building test inputs whose nature is
 * known by construction (products of primes node:crypto confirms), and a
 * textbook Miller–Rabin used only to confirm that listed pseudoprimes are
 * what the literature says they are.
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
