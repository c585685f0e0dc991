/**
 * The TS backend's probable-prime tests, verdict for verdict the same as
 * native/bignum/primality.cc: trial division below 1000, Baillie–PSW (strong
 * base 2 + strong Lucas with Selfridge's method A), then extra Miller–Rabin
 * rounds on bases derived from n by SHA-256 — never Math.random. The
 * exponentiations go to WebAssembly at the sizes where it was measured
 * faster (./modexp.ts); the Lucas sequence stays BigInt.
 */
import { sha256 } from '../hash/sha256.ts';
import { bitLength, fromBytes, isqrt, toBytes } from './bigint.ts';
import { modPowFast, pow2ModFast } from './modexp.ts';
import { TRIAL_PRIMES } from './small-primes.ts';

/**
 * Extra rounds after BPSW: none below 2^64 (BPSW is exact there), else the
 * classic table giving a 2^-80 error bound on random inputs (Damgård,
 * Landrock and Pomerance), as OpenSSL used before 3.0.
 */
export function defaultRounds(bits: number): number {
  if (bits <= 64) return 0;
  if (bits >= 3747) return 3;
  if (bits >= 1345) return 4;
  if (bits >= 476) return 5;
  if (bits >= 400) return 6;
  if (bits >= 347) return 7;
  if (bits >= 308) return 8;
  if (bits >= 55) return 27;
  return 34;
}

function strongTail(x: bigint, n: bigint, s: number): boolean {
  if (x === 1n || x === n - 1n) return true;
  for (let r = 1; r < s; r++) {
    x = (x * x) % n;
    if (x === n - 1n) return true;
    if (x === 1n) return false;
  }
  return false;
}

function splitMinusOne(n: bigint): { d: bigint; s: number } {
  let d = n - 1n;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  return { d, s };
}

export function strongBase2(n: bigint): boolean {
  const { d, s } = splitMinusOne(n);
  return strongTail(pow2ModFast(d, n), n, s);
}

export function fermatBase2(n: bigint): boolean {
  return pow2ModFast(n - 1n, n) === 1n;
}

/** Jacobi symbol (a/n) for odd n > 0. */
function jacobi(a: bigint, n: bigint): number {
  let result = 1;
  a = ((a % n) + n) % n;
  while (a !== 0n) {
    while ((a & 1n) === 0n) {
      a >>= 1n;
      const r = n & 7n;
      if (r === 3n || r === 5n) result = -result;
    }
    [a, n] = [n, a];
    if ((a & 3n) === 3n && (n & 3n) === 3n) result = -result;
    a %= n;
  }
  return n === 1n ? result : 0;
}

export function strongLucas(n: bigint): boolean {
  let D = 5n;
  for (let tries = 0; ; tries++) {
    const j = jacobi(D, n);
    if (j === -1) break;
    if (j === 0) return n === (D < 0n ? -D : D);
    if (tries === 8) {
      const r = isqrt(n);
      if (r * r === n) return false;
    }
    D = D > 0n ? -(D + 2n) : -D + 2n;
  }
  const Q = (1n - D) / 4n;
  let d = n + 1n;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  const mod = (x: bigint): bigint => ((x % n) + n) % n;
  const half = (x: bigint): bigint => ((x & 1n) === 1n ? (x + n) >> 1n : x >> 1n);
  const Dm = mod(D);
  const Qm = mod(Q);
  let U = 1n;
  let V = 1n;
  let Qk = Qm;
  const bits = d.toString(2);
  for (let i = 1; i < bits.length; i++) {
    U = (U * V) % n;
    V = mod(V * V - 2n * Qk);
    Qk = (Qk * Qk) % n;
    if (bits[i] === '1') {
      const du = (Dm * U) % n;
      U = half(mod(U + V));
      V = half(mod(du + V));
      Qk = (Qk * Qm) % n;
    }
  }
  if (U === 0n || V === 0n) return true;
  for (let r = 1; r < s; r++) {
    V = mod(V * V - 2n * Qk);
    if (V === 0n) return true;
    Qk = (Qk * Qk) % n;
  }
  return false;
}

/** Miller–Rabin round i with base 2 + (SHA-256(bytes(n) ‖ be32(i)) mod (n − 3)). */
function millerRabinDerived(n: bigint, i: number): boolean {
  const nb = toBytes(n);
  const msg = new Uint8Array(nb.length + 4);
  msg.set(nb);
  new DataView(msg.buffer).setUint32(nb.length, i);
  const base = 2n + (fromBytes(sha256(msg)) % (n - 3n));
  const { d, s } = splitMinusOne(n);
  return strongTail(modPowFast(base, d, n), n, s);
}

export function isProbablePrimeJs(n: bigint, rounds = -1, trial = true): boolean {
  if (n < 4n) return n >= 2n;
  if ((n & 1n) === 0n) return false;
  if (trial) {
    for (const r of TRIAL_PRIMES) {
      const br = BigInt(r);
      if (n === br) return true;
      if (n % br === 0n) return false;
    }
  }
  if (!strongBase2(n)) return false;
  if (!strongLucas(n)) return false;
  const k = rounds < 0 ? defaultRounds(bitLength(n)) : rounds;
  for (let i = 0; i < k; i++) if (!millerRabinDerived(n, i)) return false;
  return true;
}

export function isSafePrimeJs(p: bigint, rounds = -1): boolean {
  if (p === 5n || p === 7n) return true;
  if (p < 5n) return false;
  if ((p & 3n) !== 3n) return false;
  if (p % 3n === 0n) return false;
  if (!isProbablePrimeJs(p >> 1n, rounds)) return false;
  // Pocklington with base 2 given q prime: 2^(p−1) ≡ 1 (mod p) and gcd(2^2 − 1, p) = 1.
  return fermatBase2(p);
}
