// The sieve's depth by size, and its memory bound: past 2^28 the deep roots
// cost 4 bytes a prime in every pool thread's sieve, so the depth falls back
// rather than take more than an eighth of the machine's memory.
import { describe, expect, it } from 'vitest';
import { chunkSieveLimit } from '../src/prime/chunk-depth.ts';
import { deepSieveBytes, SIEVE_LIMIT_MAX, sieveLimit } from '../src/prime/sieve-depth.ts';

const BIG = { machine: { totalBytes: 2 ** 40, threads: 2 } };

describe('sieveLimit', () => {
  it('deepens with the size up to the cap, and the TS backend stays shallow', () => {
    // An endless run at 2048 bits: blocks of one slot, so no deeper than 2^28.
    expect(sieveLimit(2048, 'native', BIG)).toBe(2 ** 28);
    expect(sieveLimit(4096, 'native', BIG)).toBe(SIEVE_LIMIT_MAX);
    expect(sieveLimit(8192, 'native', BIG)).toBe(SIEVE_LIMIT_MAX);
    expect(sieveLimit(1024, 'native', BIG)).toBeLessThan(2 ** 26);
    expect(sieveLimit(4096, 'js', BIG)).toBe(2 ** 23);
    // Never as deep as q's least value 3·2^(bits−3), so no sieve prime is p or q.
    expect(sieveLimit(12, 'native', BIG)).toBe(2 ** 9);
  });

  it('goes past 2^28 only for a run of indexes long enough to repay it', () => {
    const at = (bits: number, indexesAhead: number): number => sieveLimit(bits, 'native', { ...BIG, indexesAhead });
    // 2048 bits: 2^30 from about 16 indexes a thread, 2^31 from about 40,
    // 2^32 from about 100; 3072: 2^30 from 3, 2^31 from 7, 2^32 from 14;
    // 4096: 2^30 for one, 2^31 from 2, 2^32 from 4; 8192: 2^32 for one.
    expect(at(2048, 1)).toBe(2 ** 28);
    expect(at(2048, 8)).toBe(2 ** 28);
    expect(at(2048, 16)).toBe(2 ** 30);
    expect(at(2048, 32)).toBe(2 ** 30);
    expect(at(2048, 64)).toBe(2 ** 31);
    expect(at(2048, 128)).toBe(SIEVE_LIMIT_MAX);
    expect(at(3072, 1)).toBe(2 ** 28);
    expect(at(3072, 2)).toBe(2 ** 28);
    expect(at(3072, 4)).toBe(2 ** 30);
    expect(at(3072, 8)).toBe(2 ** 31);
    expect(at(3072, 16)).toBe(SIEVE_LIMIT_MAX);
    expect(at(4096, 1)).toBe(2 ** 30);
    expect(at(4096, 2)).toBe(2 ** 31);
    expect(at(4096, 4)).toBe(SIEVE_LIMIT_MAX);
    expect(at(8192, 1)).toBe(SIEVE_LIMIT_MAX);
    expect(at(4096, Number.POSITIVE_INFINITY)).toBe(SIEVE_LIMIT_MAX);
    // Never 2^29: it would read the 2^30 table and save too little for it.
    for (const bits of [2048, 2560, 3072, 4096]) for (const k of [1, 2, 4, 8, 32, 1e6]) expect(at(bits, k)).not.toBe(2 ** 29);
    // Below 2048 bits the depth is within 2^28 whatever the run.
    expect(at(1536, 1)).toBe(at(1536, 1e6));
  });

  it("a queue worker's chunk: its own roots against the tests they save in it, deeper the more chunks its sieve serves", () => {
    const chunk = (bits: number, candidates: number, machine = BIG.machine): number => chunkSieveLimit(bits, 'native', candidates, machine);
    // One chunk of 32,768 candidates at 4096 bits, a sieve made for it alone: far shallower than a
    // local run's 2^32 (measured: 393 ms a chunk at 2^26, 783 at 2^31).
    expect(chunk(4096, 32768)).toBe(2 ** 26);
    expect(sieveLimit(4096, 'native', BIG)).toBe(SIEVE_LIMIT_MAX);
    let last = 0;
    for (const k of [1, 2, 4, 8, 16, 32, 64, 128]) {
      const d = chunk(4096, 32768 * k);
      expect(d).toBeGreaterThanOrEqual(last);
      last = d;
    }
    // A sieve serving a whole index of chunks (one large prime on the queue) goes as deep as a local run.
    expect(last).toBe(SIEVE_LIMIT_MAX);
    // Still within an eighth of the memory: 8 GiB and 2 threads stop at 2^30.
    expect(chunk(4096, 32768 * 64, { totalBytes: 2 ** 33, threads: 2 })).toBe(2 ** 30);
    // Below 2048 bits the depth is the size's, chunk or not.
    expect(chunk(1024, 32768)).toBe(sieveLimit(1024, 'native', BIG));
  });

  it('stays within an eighth of the memory, however many threads', () => {
    for (const [totalBytes, threads] of [
      [2 ** 34, 2],
      [2 ** 34, 64],
      [2 ** 36, 64],
      [2 ** 32, 8],
    ] as const) {
      const d = sieveLimit(4096, 'native', { machine: { totalBytes, threads } });
      expect(d).toBeGreaterThanOrEqual(2 ** 28);
      if (d > 2 ** 28) expect(deepSieveBytes(d, threads)).toBeLessThanOrEqual(totalBytes / 8);
    }
    // 16 GiB and 2 threads: the whole depth (about 1.5 GB of roots, windows and tables).
    expect(sieveLimit(4096, 'native', { machine: { totalBytes: 2 ** 34, threads: 2 } })).toBe(2 ** 31);
    // 8 GiB and 2 threads: 2^31 would pass the bound, 2^30 (0.8 GB) does not.
    expect(sieveLimit(4096, 'native', { machine: { totalBytes: 2 ** 33, threads: 2 } })).toBe(2 ** 30);
    // 16 GiB and 64 threads: 65 sieves of 2^30's roots would be 14 GB, so 2^28.
    expect(sieveLimit(4096, 'native', { machine: { totalBytes: 2 ** 34, threads: 64 } })).toBe(2 ** 28);
  });

  it('counts a bit an odd number in every table up to the depth and 4 bytes a deep prime (π(2^30) − π(2^16) = 54,393,486) in threads + 1 sieves', () => {
    // The tables to 2^22, 2^25, 2^28 and 2^30: a process that went shallow first keeps them all.
    const table = (2 ** 30 + 2 ** 28 + 2 ** 25 + 2 ** 22) / 16;
    const perSieve = deepSieveBytes(2 ** 30, 0) - table - 2 ** 24;
    expect(perSieve / 4).toBeGreaterThan(54_393_486);
    expect(perSieve / 4).toBeLessThan(54_393_486 * 1.005);
    expect(deepSieveBytes(2 ** 30, 3)).toBeCloseTo(table + 4 * perSieve + 4 * 2 ** 24, -3);
  });
});
