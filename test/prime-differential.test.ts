import { checkPrimeSync, generatePrimeSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isProbablePrimeSync, isSafePrimeSync } from '../src/index.ts';
import { rng } from './helpers/oracles.ts';
import { hasNative, skipNativeNotice } from './helpers/backends.ts';
import { randomOdd } from './helpers/number-theory.ts';

skipNativeNotice('native-vs-TS comparisons');

describe('primality: native, TS and node:crypto agree', () => {
  const next = rng(4242);
  const sizes = [
    ...Array.from({ length: 2000 }, () => 64 + Math.floor(next() * 961)),
    ...Array.from({ length: 250 }, () => 1025 + Math.floor(next() * 1024)),
    ...Array.from({ length: 50 }, () => 2049 + Math.floor(next() * 2048)),
  ];
  const composites = sizes.map((b) => randomOdd(b, next));

  it(`${composites.length} random odd numbers from 64 to 4096 bits`, () => {
    for (const n of composites) {
      const oracle = checkPrimeSync(n, { checks: 20 });
      expect(isProbablePrimeSync(n, { backend: 'js' }), String(n)).toBe(oracle);
      if (hasNative) expect(isProbablePrimeSync(n, { backend: 'native' }), String(n)).toBe(oracle);
    }
  });

  it('primes from node:crypto at 64 to 4096 bits are prime on both backends, and p+2 agrees', () => {
    for (const bits of [64, 65, 127, 256, 511, 1024, 1500, 2048, 3072, 4096]) {
      for (let i = 0; i < (bits > 2048 ? 2 : 6); i++) {
        const p = generatePrimeSync(bits, { bigint: true });
        expect(isProbablePrimeSync(p, { backend: 'js' })).toBe(true);
        if (hasNative) expect(isProbablePrimeSync(p, { backend: 'native' })).toBe(true);
        const twin = checkPrimeSync(p + 2n, { checks: 20 });
        expect(isProbablePrimeSync(p + 2n, { backend: 'js' })).toBe(twin);
        if (hasNative) expect(isProbablePrimeSync(p + 2n, { backend: 'native' })).toBe(twin);
      }
    }
  });

  it('safe primes from node:crypto are safe on both backends; their neighbours agree with node:crypto', () => {
    for (const bits of [64, 128, 256, 384]) {
      const p = generatePrimeSync(bits, { bigint: true, safe: true });
      for (const n of [p, p - 12n, p + 12n, p + 24n]) {
        const oracle = checkPrimeSync(n) && checkPrimeSync(n >> 1n) && n % 4n === 3n;
        expect(isSafePrimeSync(n, { backend: 'js' })).toBe(oracle);
        if (hasNative) expect(isSafePrimeSync(n, { backend: 'native' })).toBe(oracle);
      }
    }
  });
});

describe('check argument errors', () => {
  it.each([
    ['abc', RangeError, /n is not a whole number/],
    ['-7', RangeError, /must not be negative/],
    ['1.5', RangeError, /not a whole number/],
    [{}, TypeError, /n must be a bigint/],
  ])('isProbablePrimeSync(%j)', (value, type, message) => {
    expect(() => isProbablePrimeSync(value as never)).toThrow(type);
    expect(() => isProbablePrimeSync(value as never)).toThrow(message);
  });

  it('isSafePrimeSync rejects negatives and bad rounds', () => {
    expect(() => isSafePrimeSync(-3n)).toThrow(/p must not be negative/);
    // A long negative is named by its size, not printed digit by digit.
    expect(() => isSafePrimeSync(-(1n << 4096n))).toThrow(/^p must not be negative \(got a negative 4097-bit number\)$/);
    expect(() => isSafePrimeSync(-(1n << 63n))).toThrow(/^p must not be negative \(got -9223372036854775808\)$/);
    expect(() => isSafePrimeSync(7n, { rounds: -1 })).toThrow(/rounds/);
    expect(() => isSafePrimeSync(7n, { backend: 'gpu' as never })).toThrow(/backend/);
  });

  it('accepts decimal and 0x strings', () => {
    expect(isProbablePrimeSync('1000000007')).toBe(true);
    expect(isSafePrimeSync('0x17')).toBe(true);
    expect(isSafePrimeSync(' 23 ')).toBe(true);
  });
});
