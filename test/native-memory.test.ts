// The native sieve's lifecycle: its tables (megabytes at 2048 bits) are
// freed when its work ends, not when the collector gets round to a small
// wrapper; they are reported to the JS engine while they live; a closed
// sieve refuses to search instead of crashing. nativeMemory() counts live
// native objects over every thread of the process, so each check below
// sees the pool threads' sieves too.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closePool, searchSafePrimeRange, searchSafePrimes, searchSafePrimeSlice } from '../src/index.ts';
import { InternalError } from '../src/errors.ts';
import { native } from '../src/native.ts';
import { IndexStream } from '../src/prime/index-stream.ts';
import { hasNative } from './helpers/backends.ts';

const n = hasNative ? native() : null;

/** π(limit) by a plain sieve of Eratosthenes: independent of the addon's tables. */
function primeCount(limit: number): number {
  const composite = new Uint8Array(limit);
  let count = 0;
  for (let i = 2; i < limit; i++) {
    if (composite[i]) continue;
    count++;
    for (let j = i * i; j < limit; j += i) composite[j] = 1;
  }
  return count;
}

/** The least number ≡ 11 (mod 12) with the top two of `bits` bits set (a search stream's range starts there). */
function start(bits: number): bigint {
  const floor = 3n << BigInt(bits - 2);
  return floor + ((11n - (floor % 12n) + 12n) % 12n);
}

const live = (): number => n!.introspect.nativeMemory().objects;

describe.runIf(n !== null)('native SafePrimeSieve lifecycle', () => {
  afterEach(async () => {
    await closePool();
  });

  it("holds its residues while open and, from its first search, the deep tier's window; none once closed; close() twice is fine", () => {
    const limit = 1 << 23;
    const before = n!.introspect.nativeMemory();
    const s = new n!.SafePrimeSieve(start(2048), limit);
    const open = n!.introspect.nativeMemory();
    expect(open.objects).toBe(before.objects + 1);
    // Two residues of 4 bytes per dense-tier prime (every prime below 2^16 but 2 and 3).
    expect(open.bytes - before.bytes).toBeGreaterThanOrEqual(8 * (primeCount(1 << 16) - 2));
    s.search(0, 1000);
    // The first search strikes the deeper primes into a window of one bit per candidate, bits²/2 of them,
    // and keeps their roots, 4 bytes a prime from 2^16 to the limit.
    expect(n!.introspect.nativeMemory().bytes - open.bytes).toBeGreaterThanOrEqual((2048 * 2048) / 2 / 8 + 4 * (primeCount(limit) - primeCount(1 << 16)));
    s.close();
    expect(n!.introspect.nativeMemory()).toEqual(before);
    s.close();
    expect(n!.introspect.nativeMemory()).toEqual(before);
  });

  it('a sieve derived from a previous one holds the moved roots; the previous holds nothing', () => {
    const limit = 1 << 22;
    const before = n!.introspect.nativeMemory();
    const prev = new n!.SafePrimeSieve(start(1024), limit);
    prev.search(0, 16);
    const next = new n!.SafePrimeSieve(start(1024) + 12n * 4n * 1024n * 1024n, limit, undefined, 0, prev);
    expect(next.derived).toBe(true);
    const held = n!.introspect.nativeMemory();
    expect(held.objects).toBe(before.objects + 1);
    expect(held.bytes - before.bytes).toBeGreaterThanOrEqual(4 * (primeCount(limit) - primeCount(1 << 16)));
    next.close();
    expect(n!.introspect.nativeMemory()).toEqual(before);
  });

  it('a closed sieve throws a plain Error on search, and the process goes on', () => {
    const s = new n!.SafePrimeSieve(start(512), 1 << 21);
    expect(s.search(0, 1000).sieved).toBe(1000);
    s.close();
    expect(() => s.search(0, 1000)).toThrow(/SafePrimeSieve is closed/);
    expect(() => s.search(0, 1000)).toThrow(Error);
  });

  it('an IndexStream refuses to search once closed (both backends)', () => {
    for (const backend of ['native', 'js'] as const) {
      const is = new IndexStream(256, 1n, 0n, backend, -1, 2);
      is.searchSlice(0n, 64n);
      is.close();
      is.close();
      expect(() => is.searchSlice(0n, 64n)).toThrow(InternalError);
      // Candidates need no sieve.
      expect(is.candidate(0n) % 12n).toBe(11n);
    }
  });

  // Each pool thread keeps at most one finished index's sieve, for its next
  // index to derive its deep roots from; closing the pool frees them.
  it('searchSafePrimes leaves at most one sieve a pool thread alive when it ends, nor more when left early', async () => {
    const base = live();
    let got = 0;
    for await (const _ of searchSafePrimes({ bits: 512, count: 12, seed: 5n, threads: 2 })) got++;
    expect(got).toBe(12);
    expect(live() - base).toBeLessThanOrEqual(2);
    for await (const _ of searchSafePrimes({ bits: 512, count: 1000, seed: 6n, threads: 2 })) break;
    expect(live() - base).toBeLessThanOrEqual(2);
    await closePool();
    expect(live()).toBe(base);
  });

  it('searchSafePrimeSlice closes its sieve before it returns', () => {
    const base = live();
    const r = searchSafePrimeSlice({ bits: 512, seed: 7n, index: 0n, slice: 0n });
    expect(r.sieved).toBeGreaterThan(0);
    expect(live()).toBe(base);
  });

  it('ranges keep at most one stream per pool thread (for the next range), freed when the thread ends', async () => {
    const base = live();
    const opts = { bits: 512, seed: 8n, index: 0n, threads: 2 };
    for (let c = 0n; c < 4n; c++) await searchSafePrimeRange({ ...opts, from: c * 40_000n, to: (c + 1n) * 40_000n });
    await searchSafePrimeRange({ ...opts, index: 1n, from: 0n, to: 40_000n });
    // One stream of one run (the range stays below the wrap) per thread.
    expect(live() - base).toBeLessThanOrEqual(2);
    await closePool();
    expect(live()).toBe(base);
  });

  it('closePool in the middle of a search frees the sieves of the threads it ends', async () => {
    const base = live();
    const it = searchSafePrimes({ bits: 2048, count: 4, seed: 9n, threads: 2 })[Symbol.asyncIterator]();
    const first = it.next().catch(() => null);
    await vi.waitFor(() => expect(live()).toBeGreaterThan(base), { timeout: 30_000, interval: 20 });
    await closePool();
    await first;
    await it.return?.(undefined).catch(() => {});
    await vi.waitFor(() => expect(live()).toBe(base), { timeout: 10_000, interval: 100 });
  });

  it('sieves never closed are reported to the JS engine, so it collects them (the safety net)', async () => {
    const base = live();
    // 200 sieves whose first search built the deep tier's window, 4 MB each
    // at 8192 bits: 800 MB if none were collected.
    const made = 200;
    for (let i = 0; i < made; i++) {
      new n!.SafePrimeSieve(start(8192), 1 << 17).search(0, 12);
      // Finalizers run between turns of the event loop.
      if (i % 10 === 9) await new Promise((r) => setImmediate(r));
    }
    expect(live() - base).toBeLessThan(made / 2);
  });
});
