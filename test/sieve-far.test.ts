// The deep tier's far primes struck a block of starts at a time
// (native/bignum/far_sieve.h): a chain of sieves given a plan (starts
// 12·spacing apart, a block of `slots`) finds the same j with the same
// tests as sieves that strike every deep prime themselves, on each bignum
// kernel's copy of the walk, whether a start is a slot of the block,
// follows it, skips some, or lies below it.
import { afterAll, describe, expect, it } from 'vitest';
import type { NativeSieve } from '../src/native-binding.ts';
import { native } from '../src/native.ts';
import { skipNativeNotice, usableBignumKernels } from './helpers/backends.ts';

skipNativeNotice('the far blocks of the deep sieve');
const n = native();

const BITS = 1024;
/** Stream v2's spacing at 1024 bits (4·bits²), above the window (bits²/2) and below the limit. */
const SPACING = 4 * BITS * BITS;
const LIMIT = 1 << 25;
/** A fixed 1024-bit start ≡ 11 (mod 12) (hex digits of √2, so nothing of ours chose it). */
const BASE = (() => {
  const x = BigInt(`0x${'6a09e667f3bcc908b2fb1366ea957d3e'.repeat(8)}`);
  return x - (x % 12n) + 11n;
})();
const startAt = (k: number): bigint => BASE + 12n * BigInt(SPACING) * BigInt(k);

type Result = { found: number | null; tested: number }[];

/** Slices of 4096 from 0 until one finds. */
function slices(s: NativeSieve): Result {
  const out: Result = [];
  for (let j0 = 0; j0 < 1 << 22; j0 += 4096) {
    const r = s.search(j0, j0 + 4096);
    out.push({ found: r.found, tested: r.tested });
    if (r.found !== null) break;
  }
  return out;
}

/** What a sieve with no plan finds at start k (every deep prime struck by itself), on the kernel in force (its batches decide the tested counts). */
const plain = new Map<string, Result>();
function expected(k: number): Result {
  const key = `${n!.backendInfo().bignum}:${k}`;
  if (!plain.has(key)) {
    const s = new n!.SafePrimeSieve(startAt(k), LIMIT);
    plain.set(key, slices(s));
    s.close();
  }
  return plain.get(key)!;
}

/** A chain of planned sieves over starts `ks`, each searched until it finds; their results. */
function chain(ks: number[], slots: number): Result[] {
  let prev: NativeSieve | undefined;
  const out: Result[] = [];
  for (const k of ks) {
    const s = new n!.SafePrimeSieve(startAt(k), LIMIT, undefined, 0, prev, { spacing: SPACING, slots });
    out.push(slices(s));
    prev = s;
  }
  prev?.close();
  return out;
}

describe.runIf(n !== null)('SafePrimeSieve with a far block plan', () => {
  afterAll(() => n?.introspect.setBignumKernel());

  for (const kernel of usableBignumKernels()) {
    it(`finds what unplanned sieves find: slots, the next block, skipped and earlier starts (${kernel} kernel's walk)`, () => {
      n!.introspect.setBignumKernel(kernel);
      // 0..2 in the first block, 3..5 the next (shifted roots), then a skip past a whole block, then a start below it.
      const ks = [0, 1, 2, 3, 5, 6, 13, 9];
      const got = chain(ks, 3);
      expect(got).toEqual(ks.map(expected));
      expect(got.every((r) => r.at(-1)!.found !== null)).toBe(true);
    });
  }

  it('a block stopped while it fills starts over and still finds the same', () => {
    n!.introspect.setBignumKernel();
    const stop = new BigUint64Array(new SharedArrayBuffer(8));
    stop[0] = 1n;
    const s = new n!.SafePrimeSieve(startAt(4), LIMIT, undefined, 0, undefined, { spacing: SPACING, slots: 4 });
    expect(s.search(0, 4096, stop).stopped).toBe(true);
    expect(slices(s)).toEqual(expected(4));
    const next = new n!.SafePrimeSieve(startAt(5), LIMIT, undefined, 0, s, { spacing: SPACING, slots: 4 });
    expect(slices(next)).toEqual(expected(5));
    next.close();
  });

  it("a plan whose spacing is not the starts' own only costs time, never changes a result", () => {
    let prev: NativeSieve | undefined;
    for (const k of [0, 1, 2]) {
      const s = new n!.SafePrimeSieve(startAt(k), LIMIT, undefined, 0, prev, { spacing: SPACING + 12, slots: 2 });
      expect(slices(s)).toEqual(expected(k));
      prev = s;
    }
    prev!.close();
  });

  it('keeps the far roots for the blocks after it only when the run goes past two of them, and finds the same either way', () => {
    n!.introspect.setBignumKernel();
    // The far primes, from the spacing (2^22) to the limit (2^25): π(2^25) − π(2^22), OEIS A007053.
    const far = 2_063_689 - 295_947;
    const first = new Map<string, number>();
    const second = new Map<string, number>();
    // Blocks of 3 slots: 7 starts from the first reach past two blocks, 6 do not; no end known keeps from a chain's second block.
    for (const ahead of [undefined, 7, 6, 1]) {
      const plan = (left: number) => (ahead === undefined ? { spacing: SPACING, slots: 3 } : { spacing: SPACING, slots: 3, ahead: Math.max(1, left) });
      const before = n!.introspect.nativeMemory().bytes;
      const s = new n!.SafePrimeSieve(startAt(0), LIMIT, undefined, 0, undefined, plan(ahead ?? 0));
      expect(slices(s)).toEqual(expected(0));
      first.set(String(ahead), n!.introspect.nativeMemory().bytes - before);
      // The next block's first slot: its roots shifted from this block's where kept (then let go when not kept again), else computed.
      const next = new n!.SafePrimeSieve(startAt(3), LIMIT, undefined, 0, s, plan((ahead ?? 0) - 3));
      expect(slices(next)).toEqual(expected(3));
      second.set(String(ahead), n!.introspect.nativeMemory().bytes - before);
      next.close();
    }
    expect(first.get('7')! - first.get('6')!).toBe(4 * far);
    expect([first.get('undefined'), first.get('1')]).toEqual([first.get('6'), first.get('6')]);
    expect(second.get('undefined')! - second.get('6')!).toBe(4 * far);
    expect([second.get('7'), second.get('1')]).toEqual([second.get('6'), second.get('6')]);
  });

  it('refuses a bad plan naming it', () => {
    const bad = [
      { spacing: -1, slots: 2 },
      { spacing: 2 ** 52, slots: 2 },
      { spacing: 1.5, slots: 2 },
      { spacing: SPACING, slots: 0 },
      { spacing: SPACING, slots: 257 },
      { spacing: SPACING },
      { spacing: SPACING, slots: 2, ahead: 0 },
      { spacing: SPACING, slots: 2, ahead: 1.5 },
      { spacing: SPACING, slots: 2, ahead: 2 ** 53 },
      { spacing: SPACING, slots: 2, ahead: '3' },
    ];
    for (const plan of bad) expect(() => new n!.SafePrimeSieve(BASE, LIMIT, undefined, 0, undefined, plan as never)).toThrow(RangeError);
    expect(() => new n!.SafePrimeSieve(BASE, LIMIT, undefined, 0, undefined, 5 as never)).toThrow(/plan/);
  });
});
