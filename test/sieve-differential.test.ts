// The combined sieve, native against TS and against a direct count: for random
// starts and slice positions up to 2^53 (where the native sieve's residues
// come from reciprocals, not divisions), both strike the same candidates and
// find the same safe prime, with every class filter (Keep).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { native } from '../src/native.ts';
import { DENSE_SIEVE_LIMIT, KEEP_CODE, SafePrimeSieveJs, deepWindow, type Keep } from '../src/prime/sieve.ts';
import { skipNativeNotice } from './helpers/backends.ts';

const KEEPS: Keep[] = ['all', '23mod24', 'sshGenerator'];

skipNativeNotice('native sieve vs TS sieve');
const n = native();
const seed = process.env.FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED);

/** A start ≡ 11 (mod 12) with `bits` bits. */
const startArb = fc
  .integer({ min: 64, max: 1024 })
  .chain((bits) => fc.bigInt({ min: 1n << BigInt(bits - 1), max: (1n << BigInt(bits)) - 1n }))
  .map((x) => x - (x % 12n) + 11n);

/** Odd primes from 5 below `limit`, by trial division (independent of both sieves' tables). */
function oddPrimesFrom5(limit: number): number[] {
  const out: number[] = [];
  for (let c = 5; c < limit; c += 2) {
    let prime = true;
    for (let d = 3; d * d <= c; d += 2)
      if (c % d === 0) {
        prime = false;
        break;
      }
    if (prime) out.push(c);
  }
  return out;
}

describe.runIf(n !== null)('safe-prime sieve: native and TS strike the same candidates', () => {
  it(`random starts of 64..1024 bits, slices anywhere below 2^53, every kept class (fast-check seed ${seed})`, () => {
    fc.assert(
      fc.property(
        startArb,
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER - 4096 }), // j0 + len stays a safe integer
        fc.integer({ min: 1, max: 4096 }),
        fc.constantFrom(1 << 10, 1 << 16, DENSE_SIEVE_LIMIT),
        fc.constantFrom(...KEEPS),
        (start, j0, len, limit, keep) => {
          const a = new n!.SafePrimeSieve(start, limit, undefined, KEEP_CODE[keep]).search(j0, j0 + len);
          const b = new SafePrimeSieveJs(start, limit, -1, keep).search(j0, j0 + len);
          expect(a.found).toBe(b.found);
          expect(a.sieved).toBe(b.sieved);
          // The native sieve may have batched a few survivors past the one it found (IFMA).
          if (a.found === null) expect(a.tested).toBe(b.tested);
        },
      ),
      { seed, numRuns: 40 },
    );
  });

  // The deep tier (primes from 2^16, struck only in the window at the start):
  // slices inside it, across its end and past it. The TS twin takes start mod r
  // by BigInt division, the native one by SIMD Horner in doubles.
  it(`deep tier: random starts of 200..2048 bits, slices in and past the window, every kept class (fast-check seed ${seed})`, () => {
    const deepStart = fc
      .integer({ min: 200, max: 2048 })
      .chain((bits) => fc.bigInt({ min: 1n << BigInt(bits - 1), max: (1n << BigInt(bits)) - 1n }))
      .map((x) => x - (x % 12n) + 11n);
    fc.assert(
      fc.property(deepStart, fc.double({ min: 0, max: 1.2, noNaN: true }), fc.integer({ min: 1, max: 8192 }), fc.constantFrom(...KEEPS), (start, at, len, keep) => {
        const limit = DENSE_SIEVE_LIMIT + (1 << 22);
        const j0 = Math.floor(at * deepWindow(start.toString(2).length));
        const a = new n!.SafePrimeSieve(start, limit, undefined, KEEP_CODE[keep]).search(j0, j0 + len);
        const b = new SafePrimeSieveJs(start, limit, -1, keep).search(j0, j0 + len);
        expect(a.found).toBe(b.found);
        expect(a.sieved).toBe(b.sieved);
        if (a.found === null) expect(a.tested).toBe(b.tested);
      }),
      { seed, numRuns: 12 },
    );
  });

  it('counts the survivors a direct check counts', () => {
    const limit = 1 << 12;
    const primes = oddPrimesFrom5(limit);
    const start = (1n << 300n) + 11n - ((1n << 300n) % 12n);
    for (const keep of KEEPS) {
      const j0 = 2 ** 52 + 12345;
      const j1 = j0 + 3000;
      const r = new n!.SafePrimeSieve(start, limit, undefined, KEEP_CODE[keep]).search(j0, j1);
      const last = r.found ?? j1 - 1;
      let survivors = 0;
      for (let j = j0; j <= last; j++) {
        const p = start + 12n * BigInt(j);
        if (keep === '23mod24' && p % 24n !== 23n) continue;
        // ssh-keygen's generator rule: 2 where p ≡ 11 (mod 24), 5 where p mod 10 is 3 or 7, none otherwise.
        if (keep === 'sshGenerator' && !(p % 24n === 11n || p % 10n === 3n || p % 10n === 7n)) continue;
        if (primes.every((q) => p % BigInt(q) !== 0n && p % BigInt(q) !== 1n)) survivors++;
      }
      if (r.found === null) expect(r.tested).toBe(survivors);
      else expect(r.tested).toBeGreaterThanOrEqual(survivors);
      expect(survivors).toBeGreaterThan(20);
    }
  });
});
