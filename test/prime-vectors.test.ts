import { spawnSync } from 'node:child_process';
import { checkPrimeSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { backendInfo, isProbablePrimeSync, isSafePrimeSync } from '../src/index.ts';
import { native } from '../src/native.ts';
import { strongBase2, strongLucas } from '../src/prime/primality.ts';
import { chernickCarmichaels, isStrongProbablePrime, smallestFactor } from './helpers/number-theory.ts';
import { describeBackends, usableBignumKernels } from './helpers/backends.ts';
import { hasCommand } from './helpers/oracles.ts';

const vectors = JSON.parse(readFileSync(new URL('./vectors/rfc-safe-primes.json', import.meta.url), 'utf8')) as {
  safe_primes: Record<string, string>;
};
const rfc = Object.entries(vectors.safe_primes).map(([name, hex]) => [name, BigInt(hex)] as const);

// OEIS A014233: the smallest odd composites that are strong pseudoprimes to all of the first k prime bases.
const A014233 = [2047n, 1373653n, 25326001n, 3215031751n, 2152302898747n, 3474749660383n, 341550071728321n, 3825123056546413051n, 318665857834031151167461n, 3317044064679887385961981n];
// OEIS A001262: strong pseudoprimes to base 2.
const A001262 = [2047n, 3277n, 4033n, 4681n, 8321n, 15841n, 29341n, 42799n, 49141n, 52633n, 65281n, 74665n, 80581n, 85489n, 88357n, 90751n];
// OEIS A217255: strong Lucas pseudoprimes (Selfridge's parameters).
const A217255 = [5459n, 5777n, 10877n, 16109n, 18971n, 22499n, 24569n, 25199n, 40309n, 58519n, 75077n, 97439n, 100127n, 113573n, 115639n, 130139n];
// Arnault-type numbers (Arnault 1995): n = p1·p2·p3 with p_i = k_i(p1 − 1) + 1,
// Carmichael and a strong pseudoprime to every prime base up to B. Built for
// this suite by Arnault's construction (CRT on the residue conditions, then a
// search for three primes); the test re-checks each property independently.
const ARNAULT: { bases: number; factors: bigint[] }[] = [
  { bases: 47, factors: [6205692664881747266923n, 328901711238732605146867n, 378547252557786583282243n] },
  {
    bases: 101,
    factors: [4283939079945358626673639207599396400941403n, 484085116033825524814121230458731793306378427n, 741121460830547042414539582914695577362862547n],
  },
];
const primesUpTo = (m: number): bigint[] =>
  Array.from({ length: m - 1 }, (_, i) => i + 2)
    .filter((p) => Array.from({ length: p - 2 }, (_, i) => i + 2).every((q) => p % q !== 0))
    .map(BigInt);
// OEIS A002997: Carmichael numbers.
const A002997 = [561n, 1105n, 1729n, 2465n, 2821n, 6601n, 8911n, 10585n, 15841n, 29341n, 41041n, 46657n, 52633n, 62745n, 63973n, 75361n];

describeBackends('prime vectors', (backend) => {
  it.each(rfc.filter(([, p]) => backend === 'native' || p < 1n << 6145n))('%s is a safe prime', (_name, p) => {
    expect(isSafePrimeSync(p, { backend })).toBe(true);
    expect(isProbablePrimeSync(p, { backend })).toBe(true);
  });

  it.each(rfc.filter(([name]) => name.startsWith('rfc7919') && (backend === 'native' || !name.endsWith('8192'))))('%s rebuilt with the 300 offsets below its X is never safe', (_name, p) => {
    // RFC 7919 takes the smallest X giving a safe prime; X − d shifts p by −d·2^64.
    for (let d = 1n; d <= 300n; d++) expect(isSafePrimeSync(p - (d << 64n), { backend })).toBe(false);
  });

  it('composites from OEIS (strong pseudoprimes, Lucas pseudoprimes, Carmichael numbers) are composite', () => {
    for (const n of [...A014233, ...A001262, ...A217255, ...A002997]) {
      expect(smallestFactor(n) ?? !checkPrimeSync(n)).toBeTruthy();
      expect(isProbablePrimeSync(n, { backend }), String(n)).toBe(false);
    }
  });

  it.each(ARNAULT)("Arnault's numbers fooling Miller–Rabin for every prime base up to $bases are composite", ({ bases, factors }) => {
    const n = factors.reduce((a, b) => a * b, 1n);
    for (const f of factors) expect(checkPrimeSync(f)).toBe(true);
    for (const a of primesUpTo(bases)) expect(isStrongProbablePrime(n, a), `base ${a}`).toBe(true);
    expect(isProbablePrimeSync(n, { backend })).toBe(false);
  });

  it('large Chernick Carmichael numbers (factors confirmed prime by node:crypto) are composite', () => {
    for (const n of chernickCarmichaels(10n ** 30n, 3)) expect(isProbablePrimeSync(n, { backend })).toBe(false);
  });

  it.runIf(hasCommand('openssl', ['version']))('the RFC 5114 primes (from OpenSSL) are prime but not safe', () => {
    for (const group of [1, 2, 3]) {
      const gen = spawnSync('openssl', ['genpkey', '-genparam', '-algorithm', 'DH', '-pkeyopt', `dh_rfc5114:${group}`], { encoding: 'utf8' });
      const asn = spawnSync('openssl', ['asn1parse'], { input: gen.stdout, encoding: 'utf8' });
      const hex = /INTEGER\s+:([0-9A-F]+)/.exec(asn.stdout)?.[1];
      expect(hex, asn.stderr).toBeDefined();
      const p = BigInt(`0x${hex}`);
      expect(isProbablePrimeSync(p, { backend })).toBe(true);
      expect(isSafePrimeSync(p, { backend })).toBe(false);
    }
  });

  it('a prime p whose q = (p−1)/2 is a base-2 strong pseudoprime is not safe', () => {
    // The first base-2 strong pseudoprimes q with 2q + 1 prime (found with Python's
    // pow(); each fact is re-checked here by independent code before use).
    for (const q of [357761n, 1325843n, 1441091n, 5016191n, 7462001n, 7820201n]) {
      expect(isStrongProbablePrime(q, 2n)).toBe(true);
      expect(smallestFactor(q)).not.toBeNull();
      expect(checkPrimeSync(2n * q + 1n)).toBe(true);
      expect(isSafePrimeSync(2n * q + 1n, { backend })).toBe(false);
    }
  });

  it('small safe primes and non-safe primes', () => {
    const safe = [5n, 7n, 11n, 23n, 47n, 59n, 83n, 107n, 167n, 179n, 227n, 263n, 347n, 359n, 383n, 467n, 479n, 503n];
    for (let p = 5n; p < 520n; p++) expect(isSafePrimeSync(p, { backend }), String(p)).toBe(safe.includes(p));
  });
});

describe('Baillie–PSW components against the literature', () => {
  it('the listed base-2 strong pseudoprimes pass the strong base-2 test but not Lucas', () => {
    for (const n of A001262) {
      expect(isStrongProbablePrime(n, 2n)).toBe(true);
      expect(strongBase2(n)).toBe(true);
      expect(strongLucas(n)).toBe(false);
    }
  });

  it('the listed strong Lucas pseudoprimes pass strong Lucas but not the base-2 test', () => {
    for (const n of A217255) {
      expect(strongLucas(n)).toBe(true);
      expect(strongBase2(n)).toBe(isStrongProbablePrime(n, 2n));
      expect(strongBase2(n)).toBe(false);
    }
  });

  it.runIf(backendInfo().backend === 'native')('native BPSW without trial division, on every bignum kernel, rejects both kinds and Arnault numbers, and takes small primes', () => {
    const arnault = ARNAULT.map(({ factors }) => factors.reduce((a, b) => a * b, 1n));
    const small = primesUpTo(200).filter((p) => p > 2n);
    try {
      for (const kernel of usableBignumKernels()) {
        native()!.introspect.setBignumKernel(kernel);
        for (const n of [...A001262, ...A217255, ...A014233, ...arnault, 9n, 15n, 21n, 25n, 49n, 121n, 169n]) {
          expect(native()!.isProbablePrime(n, 0, false), `${n} on ${kernel}`).toBe(false);
        }
        for (const p of small) expect(native()!.isProbablePrime(p, 0, false), `${p} on ${kernel}`).toBe(true);
      }
    } finally {
      native()!.introspect.setBignumKernel();
    }
  });

  it('Arnault numbers pass the strong base-2 test: the strong Lucas test is what rejects them', () => {
    for (const { factors } of ARNAULT) {
      const n = factors.reduce((a, b) => a * b, 1n);
      expect(strongBase2(n)).toBe(true);
      expect(strongLucas(n)).toBe(false);
    }
  });
});
