import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { closePool, findSafePrime, searchSafePrimeSlice, searchSafePrimes, type SafePrimeResult } from '../src/index.ts';
import { startPoint, stream } from '../src/prime/stream.ts';
import { sliceLength, slicesPerClaim } from '../src/prime/tuning.ts';
import { backends, skipNativeNotice } from './helpers/backends.ts';
import { isSafePrimeByNodeCrypto } from './helpers/number-theory.ts';
import { hasCommand } from './helpers/oracles.ts';

skipNativeNotice('native-vs-TS search comparisons');

afterAll(() => closePool());

async function collect(opts: Parameters<typeof searchSafePrimes>[0]): Promise<SafePrimeResult[]> {
  const out: SafePrimeResult[] = [];
  for await (const r of searchSafePrimes(opts)) out.push(r);
  return out;
}

describe('seeded safe-prime search', () => {
  it.each([16, 17, 24, 64, 128, 256, 512])('%i bits: same primes for every backend and thread count, all safe', async (bits) => {
    const count = bits >= 512 ? 3 : 5;
    const ref = await collect({ bits, count, seed: 2026n, backend: backends[0], threads: 1 });
    expect(ref.map((r) => r.index)).toEqual(Array.from({ length: count }, (_, i) => BigInt(i)));
    for (const r of ref) {
      expect(isSafePrimeByNodeCrypto(r.prime)).toBe(true);
      expect(r.prime.toString(2)).toHaveLength(bits);
      expect(r.seed).toBe(2026n);
      expect(r.stream).toBe(2);
      // The least safe prime at or after the start point: nothing between them.
      const st = stream(bits, 2026n, r.index, r.stream);
      const start = st.lo + 12n * st.first;
      if (r.prime >= start) {
        for (let c = start; c < r.prime; c += 12n) expect(isSafePrimeByNodeCrypto(c)).toBe(false);
      }
    }
    for (const backend of backends) {
      for (const threads of [1, 2, 3]) {
        if (backend === 'js' && bits >= 512 && threads > 1) continue;
        const got = await collect({ bits, count, seed: 2026n, backend, threads });
        expect(got.map((r) => r.prime)).toEqual(ref.map((r) => r.prime));
      }
    }
  });

  it('one index alone equals the same index of a run', async () => {
    const run = await collect({ bits: 128, count: 4, seed: 'x' as never }).catch((e: unknown) => e);
    expect(run).toBeInstanceOf(RangeError);
    const all = await collect({ bits: 128, count: 4, seed: '0xabc' });
    const third = await collect({ bits: 128, count: 1, seed: 2748n, startIndex: 2 });
    expect(third[0]!.prime).toBe(all[2]!.prime);
    expect(third[0]!.index).toBe(2n);
    expect(await findSafePrime({ bits: 128, seed: 2748n, index: 3 })).toBe(all[3]!.prime);
  });

  it('a thread alone on its index claims 32768 to 131072 candidates at once; a joiner, shared runs and small sizes one slice', () => {
    expect([sliceLength(1024, 'native'), slicesPerClaim(1024, 'native', true), slicesPerClaim(1024, 'native', false)]).toEqual([8192, 4, 1]);
    expect([sliceLength(725, 'native'), slicesPerClaim(725, 'native', true)]).toEqual([8192, 4]);
    expect([sliceLength(600, 'native'), slicesPerClaim(600, 'native', true)]).toEqual([16384, 2]);
    // Above 8192 bits one slice is seconds of tests: claims stay one slice so progress keeps coming.
    expect([slicesPerClaim(8192, 'native', true), slicesPerClaim(8193, 'native', true)]).toEqual([4, 1]);
    // 2048 to 4096 bits: 131072 candidates, about half an index's; 8192 bits: a second of tests keeps it at 32768.
    expect([sliceLength(2048, 'native'), slicesPerClaim(2048, 'native', true)]).toEqual([8192, 16]);
    expect([sliceLength(4096, 'native'), slicesPerClaim(4096, 'native', true)]).toEqual([8192, 16]);
    // 512 bits: one slice already holds 32768 candidates (a whole index, mostly).
    expect([sliceLength(512, 'native'), slicesPerClaim(512, 'native', true)]).toEqual([32768, 1]);
    expect(slicesPerClaim(4096, 'js', true)).toBe(1);
  });

  it.skipIf(!backends.includes('native'))('an index gives the same prime claimed four slices at a time, one at a time, or both at once', async () => {
    // Indexes 0 and 3 of this seed hold their primes past the first four
    // slices (32768 candidates), so claims of every size are crossed.
    const alone = await collect({ bits: 1024, count: 4, seed: 11n, backend: 'native', threads: 1 });
    const offsets = alone.map((r) => {
      const st = stream(1024, 11n, r.index, r.stream);
      return (r.prime - (st.lo + 12n * st.first)) / 12n;
    });
    expect(offsets.filter((o) => o >= 32768n).length).toBeGreaterThanOrEqual(2);
    for (const r of alone) {
      expect(isSafePrimeByNodeCrypto(r.prime)).toBe(true);
      // Two threads on one index from the start: one slice a claim each.
      const [shared] = await collect({ bits: 1024, count: 1, seed: 11n, startIndex: r.index, backend: 'native', threads: 2 });
      expect(shared!.prime).toBe(r.prime);
    }
    // Two threads, an index each: the one that finishes first joins the other's, one slice a claim beside its four.
    const both = await collect({ bits: 1024, count: 4, seed: 11n, backend: 'native', threads: 2 });
    expect(both.map((r) => r.prime)).toEqual(alone.map((r) => r.prime));
  });

  it('slices of an index: the lowest slice holding a safe prime gives the search result', async () => {
    const [r] = await collect({ bits: 256, count: 1, seed: 7n, startIndex: 5 });
    let found: bigint | null = null;
    for (let slice = 0; found === null; slice++) {
      const s = searchSafePrimeSlice({ bits: 256, seed: 7n, index: 5, slice });
      expect(s.sliceLength).toBeGreaterThan(0);
      found = s.prime;
    }
    expect(found).toBe(r!.prime);
  });

  it('a start above the last safe prime below 2^bits wraps around to the bottom of the range', async () => {
    const bits = 16;
    let maxSafe = (1n << 16n) - 1n;
    while (!isSafePrimeByNodeCrypto(maxSafe)) maxSafe--;
    let minSafe = 3n << 14n;
    while (!isSafePrimeByNodeCrypto(minSafe)) minSafe++;
    let index = 0n;
    while (startPoint(bits, 5n, index) <= maxSafe) index++;
    const start2 = (i: bigint): bigint => {
      const st = stream(bits, 5n, i, 2);
      return st.lo + 12n * st.first;
    };
    let index2 = 0n;
    while (start2(index2) <= maxSafe) index2++;
    for (const backend of backends) {
      const [r] = await collect({ bits, count: 1, seed: 5n, startIndex: index, backend, stream: 1 });
      expect(r!.prime).toBe(minSafe);
      const [r2] = await collect({ bits, count: 1, seed: 5n, startIndex: index2, backend, stream: 2 });
      expect(r2!.prime).toBe(minSafe);
    }
  });

  it('the start point has the requested length with its top two bits set', () => {
    for (const bits of [16, 17, 100, 1024, 4097]) {
      for (let i = 0n; i < 5n; i++) {
        const s = startPoint(bits, 99n, i);
        expect(s >> BigInt(bits - 2)).toBe(3n);
      }
    }
    expect(startPoint(256, 1n, 0n)).not.toBe(startPoint(256, 2n, 0n));
    expect(startPoint(256, 1n, 0n)).not.toBe(startPoint(256, 1n, 1n));
  });

  it('without a seed, one is drawn and reported', async () => {
    const [a] = await collect({ bits: 64, count: 1 });
    const [b] = await collect({ bits: 64, count: 1, seed: a!.seed });
    expect(b!.prime).toBe(a!.prime);
  });

  it.runIf(hasCommand('openssl', ['version']))('1024-bit results are safe per `openssl prime`', async () => {
    const rs = await collect({ bits: 1024, count: 2, seed: 11n });
    for (const r of rs) {
      for (const n of [r.prime, r.prime >> 1n]) {
        const out = spawnSync('openssl', ['prime', n.toString()], { encoding: 'utf8' }).stdout;
        expect(out).toMatch(/is prime/);
      }
    }
  });

  it('an AbortSignal stops a search and rejects with its reason', async () => {
    const c = new AbortController();
    const reason = new Error('enough');
    const it = searchSafePrimes({ bits: 4096, count: 2, seed: 1n, signal: c.signal, onProgress: () => c.abort(reason) });
    await expect(it.next()).rejects.toBe(reason);
  });

  it.each([
    [{ bits: 15, count: 1 }, RangeError, /bits/],
    [{ bits: 16385, count: 1 }, RangeError, /bits/],
    [{ bits: 64.5, count: 1 }, RangeError, /bits/],
    [{ bits: 64, count: 0 }, RangeError, /count/],
    [{ bits: 64, count: -(1n << 100n) }, RangeError, /^count must be a whole number of at least 1 \(got a negative 101-bit number\)$/],
    [{ bits: 64, count: -5n }, RangeError, /^count must be a whole number of at least 1 \(got -5n\)$/],
    [{ bits: 64, count: 1, seed: -1n }, RangeError, /seed/],
    [{ bits: 64, count: 1, seed: 1n << 256n }, RangeError, /^seed must be from 0 to 2\^256 - 1 \(got a 257-bit number\)$/],
    [{ bits: 64, count: 1, threads: 0 }, RangeError, /threads/],
    [{ bits: 64, count: 1, startIndex: -1 }, RangeError, /startIndex/],
  ])('bad options #%#', async (opts, type, message) => {
    const err = await collect(opts as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(type);
    expect((err as Error).message).toMatch(message);
  });
});
