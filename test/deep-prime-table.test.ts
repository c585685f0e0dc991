// The deep sieve's prime tables (native/bignum/prime_table.cc: a segmented
// sieve with a copied pattern for 3 to 13 and striking primes carried from
// one segment to the next, kept as a bitmap of odd numbers with counts a
// block, read back a chunk at a time) held against a plain
// sieve of Eratosthenes written here, and against the published counts of
// primes below 2^25, 2^28, 2^31 and 2^32 (OEIS A007053).
import { describe, expect, it } from 'vitest';
import { native } from '../src/native.ts';
import { skipNativeNotice } from './helpers/backends.ts';

skipNativeNotice('the deep prime tables');
const n = native();

/** π(2^k), OEIS A007053. */
const PI = { 16: 6542, 22: 295_947, 25: 2_063_689, 28: 14_630_843, 31: 105_097_565, 32: 203_280_221 } as const;

/** Odd primes in [2^16, limit), by a byte-per-number sieve. */
function oddPrimes(limit: number): Uint32Array {
  const composite = new Uint8Array(limit);
  for (let i = 3; i * i < limit; i += 2) if (!composite[i]) for (let j = i * i; j < limit; j += 2 * i) composite[j] = 1;
  const out: number[] = [];
  for (let i = 2 ** 16 + 1; i < limit; i += 2) if (!composite[i]) out.push(i);
  return Uint32Array.from(out);
}

describe.runIf(n !== null)('deep prime tables', () => {
  it('to 2^22 and 2^25: every prime from 2^16, as an independent sieve finds them', () => {
    for (const k of [22, 25] as const) {
      const table = n!.introspect.deepPrimes(2 ** k);
      expect(table.length).toBe(PI[k] - PI[16]);
      // Compared as a whole only when they differ somewhere, so a failure names the first difference.
      const want = oddPrimes(2 ** k);
      const at = table.findIndex((p, i) => p !== want[i]);
      expect(at === -1 ? null : { at, got: table[at], want: want[at] }).toBeNull();
    }
  });

  it('to 2^28: increasing, odd, and as many as the published count', () => {
    const table = n!.introspect.deepPrimes(2 ** 28);
    expect(table.length).toBe(PI[28] - PI[16]);
    let bad = 0;
    for (let i = 0; i < table.length; i++) if ((table[i]! & 1) === 0 || (i > 0 && table[i]! <= table[i - 1]!)) bad++;
    expect(bad).toBe(0);
    expect([table[0], table.at(-1)]).toEqual([65537, 268435399]);
  });

  it('to 2^31 and 2^32: as many as the published counts, read in ranges; the top of 2^32 as a segmented sieve finds it', () => {
    // In ranges of 2^28 numbers: the whole 2^32 table read at once would be 813 MB of primes.
    const count = (limit: number): number => {
      let c = 0;
      for (let lo = 0; lo < limit; lo += 2 ** 28) c += n!.introspect.deepPrimes(limit, lo, lo + 2 ** 28).length;
      return c;
    };
    expect(count(2 ** 31)).toBe(PI[31] - PI[16]);
    expect(count(2 ** 32)).toBe(PI[32] - PI[16]);
    // The last 2^20 numbers below 2^32, where a prime no longer fits 31 bits, struck by every odd prime below 2^16.
    const lo = 2 ** 32 - 2 ** 20;
    const composite = new Uint8Array(2 ** 20);
    for (let r = 3; r < 2 ** 16; r += 2) {
      let prime = true;
      for (let d = 3; d * d <= r; d += 2) if (r % d === 0) prime = false;
      if (!prime) continue;
      for (let x = Math.ceil(lo / r) * r; x < 2 ** 32; x += r) composite[x - lo] = 1;
    }
    const want: number[] = [];
    for (let x = lo + 1; x < 2 ** 32; x += 2) if (!composite[x - lo]) want.push(x);
    expect(Array.from(n!.introspect.deepPrimes(2 ** 32, lo, 2 ** 32))).toEqual(want);
    expect(want.at(-1)).toBe(4_294_967_291);
    // A range across 2^31 reads the same primes from the 2^32 table as from the 2^31 one below it.
    const below = n!.introspect.deepPrimes(2 ** 31, 2 ** 31 - 5000, 2 ** 31);
    const across = n!.introspect.deepPrimes(2 ** 32, 2 ** 31 - 5000, 2 ** 31 + 5000);
    expect(Array.from(across.subarray(0, below.length))).toEqual(Array.from(below));
    expect(across[below.length]).toBeGreaterThan(2 ** 31);
  });

  // From here the 2^32 table is whole and serves every shallower limit too (prime_table.h): the counts
  // and cuts below hold the reader to the limit's own table.
  it('a range [lo, hi) of a table: the same primes as the independent sieve, at word and count-block edges', () => {
    const all = oddPrimes(2 ** 22);
    // Bit i of the table is 2i + 1: words hold 128 numbers and count blocks 2^19 (prime_table.h).
    const edges = [0, 2 ** 16, 2 ** 16 + 1, 2 ** 16 + 2, 65_663, 65_664, 65_665, 2 ** 19 - 1, 2 ** 19, 2 ** 19 + 1, 2 ** 20 + 127, 3_000_017, 2 ** 22];
    const wrong: string[] = [];
    for (const lo of edges)
      for (const hi of edges) {
        if (hi < lo) continue;
        const got = n!.introspect.deepPrimes(2 ** 22, lo, hi);
        const want = all.filter((p) => p >= lo && p < hi);
        if (got.length !== want.length || got.some((p, i) => p !== want[i])) wrong.push(`[${lo}, ${hi}): ${got.length} primes, want ${want.length}`);
      }
    expect(wrong).toEqual([]);
    // Past the table's limit the range is cut to it.
    expect(n!.introspect.deepPrimes(2 ** 22, 2 ** 22 - 100, 2 ** 31).length).toBe(all.filter((p) => p >= 2 ** 22 - 100).length);
  });

  it('a limit between tables reads the next table up, and a bad limit is refused naming it', () => {
    expect(n!.introspect.deepPrimes(3_000_000).length).toBe(PI[22] - PI[16]);
    for (const bad of [0, -1, 1.5, 2 ** 32 + 1, Number.NaN]) expect(() => n!.introspect.deepPrimes(bad)).toThrow(/limit/);
    expect(() => n!.introspect.deepPrimes(2 ** 22, -1)).toThrow(/lo/);
    expect(() => n!.introspect.deepPrimes(2 ** 22, 100, 99)).toThrow(/hi/);
  });
});
