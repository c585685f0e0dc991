// The combined sieve's roots for primes up to 2^32, from scratch (24-bit
// digits below 2^28, 21-bit digits from there) and derived (shifted by δ from
// the roots of start − 12·δ), on every bignum kernel's copy of the SIMD
// loops, held against BigInt residues.
import { afterAll, describe, expect, it } from 'vitest';
import { native } from '../src/native.ts';
import { skipNativeNotice, usableBignumKernels } from './helpers/backends.ts';
import { isPrimeByTrialDivision } from './helpers/number-theory.ts';

skipNativeNotice('sieve roots');
const n = native();

/** `k` primes ≥ 5 going down from below `top` (or up from `top` with up). */
function primesNear(top: number, k: number, up = false): number[] {
  const out: number[] = [];
  for (let c = up ? top + 1 : top - 1; out.length < k; c += up ? 2 : -2) if (c % 3 !== 0 && isPrimeByTrialDivision(c)) out.push(c);
  return out;
}

// Groups passed one call each, so that a group of primes below 2^28 runs the
// 24-bit digits' loop alone (a call's block of primes takes the wider digits
// when it holds any prime from 2^28 up): both sides of that edge, each
// table's depth, and the largest primes below 2^32.
const GROUPS = [
  [5, 7, 11, 13, 65521, ...primesNear(2 ** 16, 4, true), ...primesNear(2 ** 22, 8)],
  primesNear(2 ** 28, 32),
  primesNear(2 ** 28, 32, true),
  [...primesNear(2 ** 30, 16), ...primesNear(2 ** 31, 16)],
  primesNear(2 ** 32, 32),
].map((g) => Uint32Array.from(g));
const LARGEST = GROUPS.at(-1)![0]!;

/** A `bits`-bit start ≡ 11 (mod 12) from a fixed word pattern (the hex digits of π). */
function startOf(bits: number, salt: number): bigint {
  const word = BigInt(`0x${'243f6a8885a308d313198a2e03707344'.slice(salt % 8)}`);
  let x = 0n;
  while (x < 1n << BigInt(bits)) x = (x << 96n) | word;
  x = (x & ((1n << BigInt(bits)) - 1n)) | (1n << BigInt(bits - 1));
  return x - (x % 12n) + 11n;
}

function expectRoots(start: bigint, primes: Uint32Array, t0: Uint32Array, t1: Uint32Array): void {
  let wrong = 0;
  primes.forEach((r, k) => {
    const R = BigInt(r);
    const ok = t0[k]! < r && t1[k]! < r && (start + 12n * BigInt(t0[k]!)) % R === 0n && ((start + 12n * BigInt(t1[k]!) - 1n) / 2n) % R === 0n;
    if (!ok) wrong++;
  });
  expect(wrong).toBe(0);
}

describe.skipIf(!n)('sieveRoots against BigInt residues', () => {
  afterAll(() => n?.introspect.setBignumKernel());

  for (const kernel of usableBignumKernels()) {
    it(`computed and derived roots are exact up to 2^32 (${kernel} kernel's loops)`, () => {
      n!.introspect.setBignumKernel(kernel);
      for (const bits of [33, 512, 2048, 4096, 8192])
        for (const primes of GROUPS) {
          const start = startOf(bits, bits);
          const { t0, t1 } = n!.introspect.sieveRoots(start, primes);
          expectRoots(start, primes, t0, t1);
          // δ from one step to the largest shift allowed (start − 12·δ must stay
          // positive); LARGEST − 1 leaves δ − q·r = −1 for that prime.
          for (const delta of [1, 4 * bits * bits, LARGEST - 1, 2 ** 32 + 5, 2 ** 52 - 1]) {
            if (12n * BigInt(delta) >= start) continue;
            const d = n!.introspect.sieveRoots(start, primes, delta);
            expect(Array.from(d.t0)).toEqual(Array.from(t0));
            expect(Array.from(d.t1)).toEqual(Array.from(t1));
          }
        }
    });
  }

  it('refuses bad arguments naming them', () => {
    const start = startOf(512, 1);
    const PRIMES = GROUPS[0]!;
    expect(() => n!.introspect.sieveRoots(start, [5] as unknown as Uint32Array)).toThrow(new TypeError('primes must be a Uint32Array'));
    expect(() => n!.introspect.sieveRoots(start, Uint32Array.from([9]))).toThrow(RangeError);
    expect(() => n!.introspect.sieveRoots(start + 1n, PRIMES)).toThrow(new RangeError('start must be 11 modulo 12'));
    expect(() => n!.introspect.sieveRoots(start, PRIMES, 2 ** 52)).toThrow(/delta must be an integer/);
    expect(() => n!.introspect.sieveRoots(11n, PRIMES, 1)).toThrow(/delta must leave/);
  });
});
