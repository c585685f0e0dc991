/**
 * One index's candidate stream (or a range of it) searched by pool threads
 * sharing its slices: the unit the scheduler and the range search start.
 */
import { availableParallelism } from 'node:os';
import { NoSafePrimeError, SearchStoppedError } from '../errors.ts';
import { runOnThreads } from '../pool/pool.ts';
import { createShared, shared, type SharedSearch } from '../pool/shared-search.ts';
import type { IndexTask } from './index-search.ts';
import { IndexStream } from './index-stream.ts';
import { checkSieveLimitEnv, farSlots } from './sieve-depth.ts';
import { slicesPerClaim } from './tuning.ts';
import type { StreamVersion } from './stream.ts';
import type { Parsed } from './search-options.ts';
import { markHandled } from '../ignored-rejection.ts';

const WORKER = new URL('../worker.ts', import.meta.url);

export interface SafePrimeResult {
  prime: bigint;
  bits: number;
  seed: bigint;
  index: bigint;
  /** The stream version that maps the index to this prime. */
  stream: StreamVersion;
  /** Wall time spent on this index. */
  elapsedMs: number;
}

/** What a RangeRun searches and with how many threads. */
export interface RangeRunOptions {
  search: Parsed;
  index: bigint;
  /** Pool threads started on the run (more may join, see join()). */
  threads: number;
  /** Stream offsets [from, to), to clipped to the stream's end; the whole stream by default. */
  from?: bigint;
  to?: bigint;
  /** More ranges of this index are likely to follow (see IndexTask.linger). */
  linger?: boolean;
  /** See IndexTask: they size the sieve and the far blocks' roots; unbounded by default. */
  indexesAhead?: number;
  indexesLeft?: number;
}

/** An IndexRun searches its whole stream, and never lingers. */
export type IndexRunOptions = Omit<RangeRunOptions, 'from' | 'to' | 'linger'>;

/**
 * Offsets [from, to) of one index's stream searched by `threads` pool threads
 * sharing its slices, lowest first: the lowest safe prime there, or null.
 */
export class RangeRun {
  readonly shared: SharedSearch;
  readonly done: Promise<{ offset: bigint | null; prime: bigint | null }>;
  readonly started = performance.now();
  /**
   * Cleared when a thread on the run returns: threads return only once the
   * next slice starts at or past the answer (or the run stopped), so a thread
   * joining after that would find nothing left.
   */
  joinable = true;
  private readonly task: IndexTask;
  private readonly threads: Promise<void>[] = [];

  constructor(o: RangeRunOptions) {
    const { search: p, index, threads, from = 0n, to, linger = false, indexesAhead = Number.POSITIVE_INFINITY, indexesLeft = Number.POSITIVE_INFINITY } = o;
    checkSieveLimitEnv();
    const st = new IndexStream(p.bits, p.seed, index, p.backend, p.rounds, p.stream, p.keep);
    const end = to === undefined || to > st.length ? st.length : to;
    const length = end > from ? end - from : 0n;
    this.shared = createShared(length);
    const task: IndexTask = {
      kind: 'safe-prime',
      bits: p.bits,
      seed: p.seed,
      index,
      backend: p.backend,
      rounds: p.rounds,
      stream: p.stream,
      keep: p.keep,
      from,
      shared: this.shared,
      linger,
      indexesAhead,
      farSlots: farSlots(p.bits, indexesAhead, Math.min(p.threads, availableParallelism())),
      indexesLeft,
      // A lingering range is a queue worker's chunk: the coordinator spreads chunks over indexes, so its sieve seldom serves another.
      chunkCandidates: linger ? Number(length) : 0,
      slicesPerClaim: slicesPerClaim(p.bits, p.backend, threads === 1),
    };
    this.task = task;
    this.add(runOnThreads(WORKER, task, threads, this.shared));
    this.done = this.allThreads().then(() => {
      const best = shared.best(this.shared);
      if (shared.stopped(this.shared)) throw new SearchStoppedError();
      if (best >= length) return { offset: null, prime: null };
      return { offset: from + best, prime: st.candidate(from + best) };
    });
    markHandled(this.done, 'whoever awaits the run, or, for a stopped run, whoever stopped it');
  }

  /**
   * One more pool thread on this run's slices, for a thread that has no index
   * of its own left to start: the claim loop lets threads join at any time
   * and still returns the lowest prime. Settles when that thread returns.
   */
  join(): Promise<void> {
    // One slice at a time: a joiner's range above the answer is wasted whole (tuning.ts slicesPerClaim).
    return this.add(runOnThreads(WORKER, { ...this.task, slicesPerClaim: 1 }, 1, this.shared));
  }

  private add(t: Promise<void>): Promise<void> {
    this.threads.push(t);
    const returned = (): void => {
      this.joinable = false;
    };
    t.then(returned, returned);
    return t;
  }

  /** Every thread on the run has returned, joined ones included. */
  private async allThreads(): Promise<void> {
    for (let seen = 0; seen < this.threads.length; ) {
      seen = this.threads.length;
      await Promise.all(this.threads);
    }
  }
}

/** One whole index: its prime, or NoSafePrimeError when its stream holds none. */
export class IndexRun extends RangeRun {
  readonly result: Promise<SafePrimeResult>;

  constructor(o: IndexRunOptions) {
    super(o);
    const { search: p, index } = o;
    this.result = this.done.then((r) => {
      if (r.prime === null) throw new NoSafePrimeError(p.bits, index);
      return { prime: r.prime, bits: p.bits, seed: p.seed, index, stream: p.stream, elapsedMs: Math.round(performance.now() - this.started) };
    });
    markHandled(this.result, 'the scheduler, when the index comes to be yielded (a run left behind on an early exit is only waited for)');
  }
}
