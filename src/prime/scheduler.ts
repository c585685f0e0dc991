/**
 * The scheduler of a seeded search: which pool threads run which index, in
 * what order results are yielded, progress reports and the abort path.
 */
import { poolSize } from '../pool/pool.ts';
import { shared } from '../pool/shared-search.ts';
import { RunLifecycle, throwIfAborted } from '../run-lifecycle.ts';
import { IndexRun, type SafePrimeResult } from './runs.ts';
import { parseSpan, type Parsed, type SearchSpan } from './search-options.ts';

/** Results `count`, from startIndex by stride, of the search `p`, in index order. */
export async function* runSearch(p: Parsed, opts: { count: number | bigint; startIndex?: number | bigint; stride?: number | bigint }): AsyncGenerator<SafePrimeResult, void, undefined> {
  const span = parseSpan(opts);
  throwIfAborted(p.signal);
  const scheduler = new Scheduler(p, span);
  try {
    for (let index = span.startIndex; index < scheduler.end; index += span.stride) yield await scheduler.take(index);
    // A last report with the final counts (the timer's may be up to a tick old).
    scheduler.report();
  } finally {
    await scheduler.close();
  }
}

/**
 * Each pool thread takes its own index when there are enough of them, else
 * all threads share one index. A thread that finishes its index starts the
 * next one at once, even while an earlier index is still running; results
 * wait in their runs to be taken in index order (read-ahead is bounded).
 */
class Scheduler {
  /** One past the last index, in steps of the stride. */
  readonly end: bigint;
  /** Threads per index: 1 (each thread its own index), or all of them on one index. */
  private readonly perIndex: number;
  /** Threads at work at once. */
  private readonly running: number;
  /** How far past the index being taken runs may start, so finished results wait in bounded number. */
  private readonly readAhead: bigint;
  /**
   * Indexes a thread expects to search one after another: its sieve's depth
   * depends on it (a deep sieve repays its first index over a run).
   */
  private readonly ahead: number;
  private readonly life: RunLifecycle;
  private readonly started = performance.now();

  /** Runs started and not yet taken, by index. */
  private readonly active = new Map<bigint, IndexRun>();
  /** The next index to start. */
  private next: bigint;
  /** The index being taken (or last taken, while the caller holds its result): read-ahead counts from it. */
  private cursor: bigint;
  /** Threads at work, on their own index or joined to another's. */
  private busy = 0;
  /** Set when the caller leaves (break, error, abort): a run that settles then must not start another. */
  private closed = false;
  /** Results taken, and the work of their runs (a report adds the active runs' work to it). */
  private found = 0;
  private doneSieved = 0n;
  private doneTested = 0n;
  /**
   * A failure to start work in settle(), a promise callback with no caller
   * above it to throw to: the take() waiting then (through `wake`), or the
   * next one, throws it, so it reaches the consumer of the search instead of
   * going unhandled. Not a promise raced in every take(): one pending for the
   * whole search would keep every race, and the result it carried, alive.
   */
  private failure: { err: unknown } | null = null;
  private wake: ((err: unknown) => void) | null = null;

  constructor(
    private readonly p: Parsed,
    private readonly span: SearchSpan,
  ) {
    const { count, startIndex, stride } = span;
    this.end = startIndex + count * stride;
    this.next = startIndex;
    this.cursor = startIndex;
    this.perIndex = count >= BigInt(p.threads) ? 1 : p.threads;
    this.running = this.perIndex === 1 ? Math.min(p.threads, poolSize()) : 1;
    this.readAhead = BigInt(4 * this.running) * stride;
    this.ahead = Number(count) / p.threads;
    this.life = new RunLifecycle(p.signal, () => this.stopAll(), p.onProgress && (() => this.report()));
  }

  /** The result of `index`, the next in order: started now if it was not yet. */
  async take(index: bigint): Promise<SafePrimeResult> {
    this.cursor = index;
    if (this.failure) throw this.life.failure(this.failure.err);
    this.launch();
    const run = this.active.get(index)!;
    let result: SafePrimeResult;
    try {
      result = await new Promise<SafePrimeResult>((resolve, reject) => {
        this.wake = reject;
        run.result.then(resolve, reject);
      });
    } catch (err) {
      throw this.life.failure(err);
    } finally {
      this.wake = null;
    }
    this.active.delete(index);
    this.doneSieved += shared.work(run.shared);
    this.doneTested += shared.work2(run.shared);
    this.found++;
    return result;
  }

  /** Progress so far: the taken runs' work and the active runs' work to date. */
  report(): void {
    let sieved = this.doneSieved;
    let tested = this.doneTested;
    for (const run of this.active.values()) {
      sieved += shared.work(run.shared);
      tested += shared.work2(run.shared);
    }
    this.p.onProgress?.({ found: this.found, sieved: Number(sieved), tested: Number(tested), elapsedMs: Math.round(performance.now() - this.started) });
  }

  /** When the caller leaves (done, break, error, abort): start nothing more, stop what is still running and let it wind down. */
  async close(): Promise<void> {
    this.life.close();
    this.closed = true;
    this.stopAll();
    await Promise.allSettled([...this.active.values()].map((r) => r.done));
  }

  /** Puts every free thread to work: on the next indexes first, then helping a running one. */
  private launch(): void {
    while (!this.closed && this.busy < this.running && this.next < this.end && this.next < this.cursor + this.readAhead) {
      this.startNext();
    }
    // A thread with no index left to start (the last indexes of a search, or
    // read-ahead full) helps the earliest index still running, so the tail of
    // a search does not leave cores idle.
    while (!this.closed && this.perIndex === 1 && this.busy < this.running) {
      const run = [...this.active.values()].find((r) => r.joinable);
      if (!run) break;
      // Counted once joined: a join that throws holds no thread.
      const joined = run.join();
      this.busy++;
      joined.then(
        () => this.settle(),
        () => this.settle(),
      );
    }
  }

  private startNext(): void {
    const index = this.next;
    // Index positions to the last one, for the far blocks' roots (IndexTask.indexesLeft).
    const indexesLeft = Number(this.end - this.span.stride - index + 1n);
    const run = new IndexRun({ search: this.p, index, threads: this.perIndex, indexesAhead: this.ahead, indexesLeft });
    this.active.set(index, run);
    this.busy++;
    this.next += this.span.stride;
    // Its failure reaches the caller through take(); here it only frees the threads.
    void run.result.then(
      () => this.settle(),
      () => this.settle(),
    );
  }

  /**
   * A thread returned: it is free for the next index, or to help another.
   * Called from a run's promise, so a failure to start one (launch() threw)
   * is handed to take() through `failure` rather than thrown here, where it
   * would be an unhandled rejection and the search would go on without it.
   */
  private settle(): void {
    this.busy--;
    try {
      this.launch();
    } catch (err) {
      this.failure ??= { err };
      // After the reactions already queued: a take() whose own run has just settled gets its result, and the next take() throws.
      queueMicrotask(() => this.wake?.(err));
    }
  }

  private stopAll(): void {
    for (const run of this.active.values()) shared.stop(run.shared);
  }
}
