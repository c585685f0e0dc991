// The stop flag reaches inside a slice: both sieves give up between two tests
// once it is set, so an abort does not wait for a slice's seconds of tests.
import { describe, expect, it } from 'vitest';
import { native } from '../src/native.ts';
import { SafePrimeSieveJs } from '../src/prime/sieve.ts';
import { sieveLimit } from '../src/prime/sieve-depth.ts';
import { describeBackends } from './helpers/backends.ts';

const BITS = 1024;
// A start ≡ 11 (mod 12) of BITS bits, as the sieves require.
const base = 3n << BigInt(BITS - 2);
const START = base + ((11n - (base % 12n) + 12n) % 12n);

function sieveFor(backend: 'native' | 'js'): { search: (j0: number, j1: number, stop?: BigUint64Array) => { found: number | null; tested: number; stopped?: true } } {
  return backend === 'js' ? new SafePrimeSieveJs(START, sieveLimit(BITS), -1) : new (native()!.SafePrimeSieve)(START, sieveLimit(BITS), undefined);
}

const flag = (v: bigint): BigUint64Array => {
  const f = new BigUint64Array(new SharedArrayBuffer(8));
  f[0] = v;
  return f;
};

describeBackends('sieve stop flag', (backend) => {
  it('a clear flag changes nothing; a set flag stops before a second test', () => {
    const s = sieveFor(backend);
    const plain = s.search(0, 2048);
    expect(s.search(0, 2048, flag(0n))).toEqual(plain);
    const stopped = s.search(0, 2048, flag(1n));
    expect(stopped.stopped).toBe(true);
    expect(stopped.found).toBeNull();
    expect(stopped.tested).toBeLessThanOrEqual(1);
    expect(plain.tested).toBeGreaterThan(1);
  });

  // The deep tier is struck on the first search that reaches its window: a
  // stop raised then is seen there, and the half-made tier is not kept.
  it('a stop on the first search of a sieve leaves the next search the answer of a fresh sieve', () => {
    const s = sieveFor(backend);
    const stopped = s.search(0, 2048, flag(1n));
    expect(stopped.stopped).toBe(true);
    expect(stopped.tested).toBe(0);
    expect(s.search(0, 2048)).toEqual(sieveFor(backend).search(0, 2048));
  });
});

describe.runIf(native() !== null)('native sieve stop argument', () => {
  it.each([[1], [new BigInt64Array(1)], [new BigUint64Array(0)], [{}]])('refuses %o naming stop', (bad) => {
    const s = new (native()!.SafePrimeSieve)(START, sieveLimit(BITS), undefined);
    expect(() => s.search(0, 10, bad as unknown as BigUint64Array)).toThrow(/^stop must be a BigUint64Array/);
  });
});
