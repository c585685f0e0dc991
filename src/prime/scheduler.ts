/**
 * The scheduler of a seeded search: which pool threads run which index, in
 * what order results are yielded, progress reports and the abort path.
 */
import { poolSize } from '../pool/pool.ts';
import { shared } from '../pool/shared-search.ts';
import { RunLifecycle, throwIfAborted } from '../run-lifecycle.ts';
import { IndexRun, type SafePrimeResult } from './runs.ts';
import { parseSpan, type Parsed } from './search-options.ts';

/** Results `count`, from startIndex by stride, of the search `p`, in index order. */
export async function* runSearch(p: Parsed, opts: { count: number | bigint; startIndex?: number | bigint; stride?: number | bigint }): AsyncGenerator<SafePrimeResult, void, undefined> {
  const { count, startIndex, stride } = parseSpan(opts);
  throwIfAborted(p.signal);

  const end = startIndex + count * stride;
  const started = performance.now();
  const active = new Map<bigint, IndexRun>();
  let found = 0;
  let doneSieved = 0n;
  let doneTested = 0n;
  const stopAll = (): void => {
    for (const run of active.values()) shared.stop(run.shared);
  };
  const life = new RunLifecycle(
    p.signal,
    stopAll,
    p.onProgress &&
      (() => {
        let sieved = doneSieved;
        let tested = doneTested;
        for (const run of active.values()) {
          sieved += shared.work(run.shared);
          tested += shared.work2(run.shared);
        }
        p.onProgress!({ found, sieved: Number(sieved), tested: Number(tested), elapsedMs: Math.round(performance.now() - started) });
      }),
  );

  // Each pool thread takes its own index when there are enough of them, else
  // all threads share one index. A thread that finishes its index starts the
  // next one at once, even while an earlier index is still running; results
  // wait in `done` to be yielded in index order (read-ahead is bounded).
  let next = startIndex;
  const perIndex = count >= BigInt(p.threads) ? 1 : p.threads;
  const running = perIndex === 1 ? Math.min(p.threads, poolSize()) : 1;
  const readAhead = BigInt(4 * running) * stride;
  // Indexes a thread expects to search one after another: its sieve's depth
  // depends on it (a deep sieve repays its first index over a run).
  const ahead = Number(count) / p.threads;
  let busy = 0;
  // Set when the caller leaves (break, error, abort): a run that settles then must not start another.
  let closed = false;
  const launch = (yielded: bigint): void => {
    while (!closed && busy < running && next < end && next < yielded + readAhead) {
      // Index positions to the last one, for the far blocks' roots (IndexTask.indexesLeft).
      const run = new IndexRun(p, next, perIndex, ahead, Number(end - stride - next + 1n));
      active.set(next, run);
      busy++;
      next += stride;
      void run.result.then(
        () => settle(),
        () => settle(),
      );
    }
    // A thread with no index left to start (the last indexes of a search, or
    // read-ahead full) helps the earliest index still running, so the tail of
    // a search does not leave cores idle.
    while (!closed && perIndex === 1 && busy < running) {
      const run = [...active.values()].find((r) => r.joinable);
      if (!run) break;
      busy++;
      run.join().then(
        () => settle(),
        () => settle(),
      );
    }
  };
  const settle = (): void => {
    busy--;
    launch(cursor);
  };
  let cursor = startIndex;
  try {
    for (; cursor < end; cursor += stride) {
      launch(cursor);
      const run = active.get(cursor)!;
      let result: SafePrimeResult;
      try {
        result = await run.result;
      } catch (err) {
        throw life.failure(err);
      }
      active.delete(cursor);
      doneSieved += shared.work(run.shared);
      doneTested += shared.work2(run.shared);
      found++;
      yield result;
    }
    // A last report with the final counts (the timer's may be up to a tick old).
    p.onProgress?.({ found, sieved: Number(doneSieved), tested: Number(doneTested), elapsedMs: Math.round(performance.now() - started) });
  } finally {
    life.close();
    // Leaving early (break, error, abort): start nothing more, stop what is still running and let it wind down.
    closed = true;
    stopAll();
    await Promise.allSettled([...active.values()].map((r) => r.done));
  }
}
