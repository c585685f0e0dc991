// The seeded search's scheduler (src/prime/scheduler.ts): a failure that
// happens where no caller is on the stack still reaches the search's consumer.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { closePool, searchSafePrimes } from '../src/index.ts';

// Which construction of an IndexRun throws (0: none), and how many there were.
const runs = vi.hoisted(() => ({ made: 0, failAt: 0 }));

vi.mock('../src/prime/runs.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/prime/runs.ts')>();
  class IndexRun extends real.IndexRun {
    constructor(o: ConstructorParameters<typeof real.IndexRun>[0]) {
      // As a real start could throw (a SharedArrayBuffer the machine cannot give, a pool gone).
      if (++runs.made === runs.failAt) throw new Error('this index run could not start');
      super(o);
    }
  }
  return { ...real, IndexRun };
});

afterAll(() => closePool());

describe('the scheduler', () => {
  it('an index that fails to start when a run settles (not in take) rejects the iterator, and leaves no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    // One thread: index 0 is started by the first take(); index 1 by the
    // settling of index 0's run, a promise callback, which is where it fails.
    // Only that start fails: started again by the next take(), it would run,
    // so the search would finish all three with the failure lost.
    runs.made = 0;
    runs.failAt = 2;
    const got: bigint[] = [];
    try {
      const consume = async (): Promise<void> => {
        for await (const r of searchSafePrimes({ bits: 64, seed: 5n, count: 3, threads: 1 })) got.push(r.index);
      };
      await expect(consume()).rejects.toThrow('this index run could not start');
      expect(got).toEqual([0n]);
      // Node reports unhandled rejections once the microtasks drain: one turn of the loop is enough.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      runs.failAt = 0;
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
