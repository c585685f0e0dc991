// A deep sieve's prime table (to 2^30, half a second to build) is built
// by the first search that needs it, which sees a stop raised meanwhile; the
// search after a stop completes with the answer a shallower sieve gives.
import { describe, expect, it } from 'vitest';
import { native } from '../src/native.ts';
import { skipNativeNotice } from './helpers/backends.ts';

skipNativeNotice('the deep prime table and a stop');
const n = native();

/** A 2048-bit start ≡ 11 (mod 12) from the hex digits of e, so nothing of ours chose it. */
const START = (() => {
  const x = BigInt(`0x${'b7e151628aed2a6abf7158809cf4f3c7'.repeat(16)}`);
  return x - (x % 12n) + 11n;
})();

describe.runIf(n !== null)('SafePrimeSieve to 2^30', () => {
  it('returns stopped when the stop is raised before its first search, then finds what a 2^28 sieve finds', () => {
    const stop = new BigUint64Array(new SharedArrayBuffer(8));
    stop[0] = 1n;
    const deep = new n!.SafePrimeSieve(START, 2 ** 30);
    expect(deep.search(0, 8192, stop)).toMatchObject({ stopped: true, found: null });
    const shallow = new n!.SafePrimeSieve(START, 2 ** 28);
    let j0 = 0;
    for (; ; j0 += 8192) {
      const a = shallow.search(j0, j0 + 8192);
      const b = deep.search(j0, j0 + 8192);
      expect(b.found).toBe(a.found);
      // Every candidate the deeper sieve tests, the shallower one tests too.
      expect(b.tested).toBeLessThanOrEqual(a.tested);
      if (a.found !== null) break;
    }
    deep.close();
    shallow.close();
  });
});
