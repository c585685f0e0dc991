// The public boundary: every non-negative number has a verdict, indexes are
// 64-bit and refused beyond, and malformed arguments are TypeError/RangeError
// naming the argument instead of "Cannot read properties of …".
import { afterAll, describe, expect, it } from 'vitest';
import { candidate, closePool, findSafePrime, isProbablePrimeSync, isSafePrime, isSafePrimeSync, powLayout, searchSafePrimeSlice, sha256, solvePow } from '../src/index.ts';
import { backends } from './helpers/backends.ts';

afterAll(() => closePool());

/** Trial division: the oracle for small numbers. */
function isPrimeNaive(n: number): boolean {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}

describe('small numbers get verdicts', () => {
  it.each(backends)('0 to 2000 agree with trial division (%s)', (backend) => {
    for (let n = 0; n <= 2000; n++) {
      const safe = isPrimeNaive(n) && n >= 5 && isPrimeNaive((n - 1) / 2);
      expect(isProbablePrimeSync(BigInt(n), { backend }), String(n)).toBe(isPrimeNaive(n));
      expect(isSafePrimeSync(BigInt(n), { backend }), String(n)).toBe(safe);
    }
  });

  it('0 to 4 are not safe primes and 5 is, on the pool too', async () => {
    expect(await Promise.all([0n, 1n, 2n, 3n, 4n, 5n].map((p) => isSafePrime(p)))).toEqual([false, false, false, false, false, true]);
  });
});

describe('indexes are 64-bit', () => {
  const slice = { bits: 64, seed: 1n, slice: 0 };
  it.each([2n ** 64n, 2n ** 70000n, -1n])('searchSafePrimeSlice refuses index %s', (index) => {
    expect(() => searchSafePrimeSlice({ ...slice, index })).toThrow(RangeError);
    expect(() => searchSafePrimeSlice({ ...slice, index })).toThrow(/index must be from 0 to 2\^64 - 1/);
  });

  it('the largest index is searched, and differs from index 0', () => {
    const last = searchSafePrimeSlice({ ...slice, index: 2n ** 64n - 1n });
    const first = searchSafePrimeSlice({ ...slice, index: 0n });
    expect(last.offset === null || first.offset === null || last.prime !== first.prime).toBe(true);
  });

  it('findSafePrime names its own argument', async () => {
    await expect(findSafePrime({ bits: 64, index: 2n ** 64n })).rejects.toThrow(/^index must be/);
  });
});

describe('malformed arguments', () => {
  const layout = powLayout(4);
  it.each([
    ['candidate(layout, undefined)', () => candidate(layout, undefined as never), TypeError, /^k must be a bigint/],
    ["candidate(layout, 'abc')", () => candidate(layout, 'abc' as never), TypeError, /^k must be a bigint/],
    ['candidate(layout, -1n)', () => candidate(layout, -1n), RangeError, /^k must be from 0/],
    ['candidate(null, 1n)', () => candidate(null as never, 1n), TypeError, /^layout must be/],
    ['powLayout(-1)', () => powLayout(-1), RangeError, /nonceLength/],
    ['powLayout(1.5)', () => powLayout(1.5), RangeError, /nonceLength/],
    ['powLayout(null)', () => powLayout(null as never), TypeError, /nonceLength/],
    ["powLayout('')", () => powLayout('' as never), TypeError, /nonceLength/],
    ['sha256(u8, null)', () => sha256(new Uint8Array(1), null as never), TypeError, /^options must be an object/],
    ['isSafePrimeSync(7n, 0)', () => isSafePrimeSync(7n, 0 as never), TypeError, /^options must be an object/],
  ] as const)('%s', (_name, call, type, message) => {
    expect(call).toThrow(type);
    expect(call).toThrow(message);
  });

  it.each([null, 0, 'fast', []])('solvePow(ok, %j) is a TypeError naming options', async (options) => {
    await expect(solvePow({ nonce: 'n', difficulty: 1 }, options as never)).rejects.toThrow(/^options must be an object/);
  });

  it('findSafePrime(undefined) is a TypeError', async () => {
    await expect(findSafePrime(undefined as never)).rejects.toThrow(TypeError);
  });
});
