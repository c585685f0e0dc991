// The deepest sieve, to 2^32 (kSieveLimit): its primes from 2^31 up no
// longer fit 31 bits, and the limit itself no longer fits 32. Sieves to
// 2^25, 2^31 and 2^32 from the same starts find the same j, each deeper one
// testing strictly fewer candidates (so the primes from 2^31 do strike), and
// a chain of planned sieves at 2^32 (far blocks, their roots shifted from
// one block to the next) finds exactly what unplanned ones do. The roots of
// primes near 2^32 are held against BigInt residues in sieve-roots.test.ts,
// and the tables' primes against published counts in deep-prime-table.test.ts.
import { describe, expect, it } from 'vitest';
import type { NativeSieve } from '../src/native-binding.ts';
import { native } from '../src/native.ts';
import { skipNativeNotice } from './helpers/backends.ts';

skipNativeNotice('the sieve to 2^32');
const n = native();

const BITS = 512;
/** Stream v2's spacing at 512 bits (4·bits²): deep primes from here up are far (far_sieve.h). */
const SPACING = 4 * BITS * BITS;
/** A fixed 512-bit start ≡ 11 (mod 12) (hex digits of √3, so nothing of ours chose it). */
const BASE = (() => {
  const x = BigInt(`0x${'bb67ae8584caa73b'.repeat(8)}`);
  return x - (x % 12n) + 11n;
})();
const startAt = (k: number): bigint => BASE + 12n * BigInt(SPACING) * BigInt(k);

/** Searches slices of 8192 from 0 until one finds: the j found and the candidates tested on the way. */
function search(s: NativeSieve): { found: number; tested: number } {
  let tested = 0;
  for (let j0 = 0; j0 < 1 << 24; j0 += 8192) {
    const r = s.search(j0, j0 + 8192);
    tested += r.tested;
    if (r.found !== null) return { found: r.found, tested };
  }
  throw new Error('no safe prime in 2^24 candidates');
}

function unplanned(k: number, limit: number): { found: number; tested: number } {
  const s = new n!.SafePrimeSieve(startAt(k), limit);
  try {
    return search(s);
  } finally {
    s.close();
  }
}

describe.runIf(n !== null)('the sieve to 2^32', () => {
  it('finds what shallower sieves find, testing fewer candidates at each depth up to 2^32', () => {
    for (const k of [0, 1]) {
      const [shallow, b31, b32] = [2 ** 25, 2 ** 31, 2 ** 32].map((limit) => unplanned(k, limit));
      expect(b31!.found).toBe(shallow!.found);
      expect(b32!.found).toBe(shallow!.found);
      expect(b31!.tested).toBeLessThan(shallow!.tested);
      expect(b32!.tested).toBeLessThan(b31!.tested);
    }
  });

  // On the kernel in force: the far walks of the others (sieve-far.test.ts) and their roots' copies
  // near 2^32 (sieve-roots.test.ts) are tested apart, and their roots from scratch for every prime
  // below 2^32 took 25–33 s here where the AVX-512 copy takes 5.
  it('a chain of planned sieves (far blocks of two slots, the third shifted from the second) finds what unplanned ones find', () => {
    const want = [0, 2, 4].map((k) => unplanned(k, 2 ** 32));
    let prev: NativeSieve | undefined;
    const got: { found: number; tested: number }[] = [];
    for (const k of [0, 2, 4]) {
      const s = new n!.SafePrimeSieve(startAt(k), 2 ** 32, undefined, 0, prev, { spacing: SPACING, slots: 2 });
      got.push(search(s));
      prev = s;
    }
    prev!.close();
    expect(got).toEqual(want);
  });

  it('refuses a limit past 2^32 naming it', () => {
    expect(() => new n!.SafePrimeSieve(BASE, 2 ** 32 + 1)).toThrow(/sieveLimit/);
  });
});
