/**
 * Seeded safe-prime search on the pool. Prime number i of a search is the
 * least safe prime at or after start(bits, seed, i) in its stream (see
 * stream.ts), so results are keyed by (bits, seed, index): the same for any
 * backend and thread count, and any index can be computed (or resumed) alone.
 */
import { webcrypto } from 'node:crypto';
import { BACKEND_CHOICES, resolveBackend, type Backend, type BackendChoice } from '../backend.ts';
import { InternalError, NoSafePrimeError, SearchStoppedError } from '../errors.ts';
import { poolSize, runOnThreads } from '../pool/pool.ts';
import { createShared, shared, type SharedSearch } from '../pool/shared-search.ts';
import { INDEX_LIMIT, MAX_SEARCH_BITS, MIN_SEARCH_BITS, SEED_LIMIT } from '../limits.ts';
import { argumentError, checkCount, checkFunction, checkInteger, checkOneOf, checkRounds, checkSignal, checkThreads, parseBigInt, abortReason } from '../validate.ts';
import { IndexStream, type IndexTask } from './index-search.ts';
import { sliceLength as sliceLengthFor } from './tuning.ts';

const PROGRESS_MS = 250;
const WORKER = new URL('../worker.ts', import.meta.url);

export interface SafePrimeProgress {
  /** Primes found so far in this call (a last report with the final counts comes once all are found). */
  found: number;
  /** Candidates sieved and candidates that reached a Fermat test, so far. */
  sieved: number;
  tested: number;
  elapsedMs: number;
}

export interface SafePrimeSearchOptions {
  bits: number;
  /** 0 ≤ seed < 2^256, as a bigint or decimal / 0x string; drawn at random (and reported) when absent. */
  seed?: bigint | string;
  threads?: number;
  backend?: BackendChoice;
  /** Miller–Rabin rounds on q after Baillie–PSW (default by size). */
  rounds?: number;
  signal?: AbortSignal;
  onProgress?: (p: SafePrimeProgress) => void;
}

export interface SafePrimeResult {
  prime: bigint;
  bits: number;
  seed: bigint;
  index: bigint;
  /** Wall time spent on this index. */
  elapsedMs: number;
}

interface Parsed {
  bits: number;
  seed: bigint;
  threads: number;
  backend: Backend;
  rounds: number;
  signal: AbortSignal | undefined;
  onProgress: ((p: SafePrimeProgress) => void) | undefined;
  /** Only p ≡ 23 (mod 24) counts: DH parameters (dhparam.ts). */
  only23Mod24: boolean;
}

/** A seed as the API and CLI take it: 0 ≤ seed < 2^256, as a bigint or decimal / 0x string. */
export function parseSeed(name: string, value: unknown): bigint {
  const seed = parseBigInt(name, value);
  if (seed < 0n || seed >= SEED_LIMIT) throw argumentError(RangeError, name, `must be from 0 to 2^256 - 1 (got ${seed})`);
  return seed;
}

/** A prime's index in a seeded search: 0 ≤ index < 2^64. */
function parseIndex(name: string, value: unknown): bigint {
  const index = parseBigInt(name, value);
  if (index < 0n || index >= INDEX_LIMIT) throw argumentError(RangeError, name, `must be from 0 to 2^64 - 1 (got ${index})`);
  return index;
}

/** A fresh 128-bit seed from crypto.getRandomValues. */
export function randomSeed(): bigint {
  const b = webcrypto.getRandomValues(new Uint8Array(16));
  return BigInt(`0x${Buffer.from(b).toString('hex')}`);
}

function parseOptions(opts: SafePrimeSearchOptions, only23Mod24 = false): Parsed {
  if (opts === null || typeof opts !== 'object') throw new TypeError('options must be an object with at least {bits}');
  const bits = checkInteger('bits', opts.bits, MIN_SEARCH_BITS, MAX_SEARCH_BITS);
  const seed = opts.seed === undefined ? randomSeed() : parseSeed('seed', opts.seed);
  return {
    bits,
    seed,
    threads: opts.threads === undefined ? poolSize() : checkThreads('threads', opts.threads),
    backend: resolveBackend(checkOneOf('backend', opts.backend ?? 'auto', BACKEND_CHOICES)),
    rounds: checkRounds('rounds', opts.rounds),
    signal: checkSignal('signal', opts.signal),
    onProgress: checkFunction<(p: SafePrimeProgress) => void>('onProgress', opts.onProgress),
    only23Mod24,
  };
}


/**
 * Offsets [from, to) of one index's stream searched by `threads` pool threads
 * sharing its slices, lowest first: the lowest safe prime there, or null.
 */
class RangeRun {
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

  /** linger: more ranges of this index are likely to follow (see IndexTask.linger). */
  constructor(p: Parsed, index: bigint, threads: number, from = 0n, to?: bigint, linger = false) {
    const st = new IndexStream(p.bits, p.seed, index, p.backend, p.rounds, p.only23Mod24);
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
      only23Mod24: p.only23Mod24,
      from,
      shared: this.shared,
      linger,
    };
    this.task = task;
    this.add(runOnThreads(WORKER, task, threads, this.shared));
    this.done = this.allThreads().then(() => {
      const best = shared.best(this.shared);
      if (shared.stopped(this.shared)) throw new SearchStoppedError();
      if (best >= length) return { offset: null, prime: null };
      return { offset: from + best, prime: st.candidate(from + best) };
    });
    // A stopped run's rejection is handled by whoever stopped it.
    this.done.catch(() => {});
  }

  /**
   * One more pool thread on this run's slices, for a thread that has no index
   * of its own left to start: the claim loop lets threads join at any time
   * and still returns the lowest prime. Settles when that thread returns.
   */
  join(): Promise<void> {
    return this.add(runOnThreads(WORKER, this.task, 1, this.shared));
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
class IndexRun extends RangeRun {
  readonly result: Promise<SafePrimeResult>;

  constructor(p: Parsed, index: bigint, threads: number) {
    super(p, index, threads);
    this.result = this.done.then((r) => {
      if (r.prime === null) throw new NoSafePrimeError(p.bits, index);
      return { prime: r.prime, bits: p.bits, seed: p.seed, index, elapsedMs: Math.round(performance.now() - this.started) };
    });
    this.result.catch(() => {});
  }
}

/**
 * Safe primes number startIndex, startIndex+stride, … (count of them) of the
 * seeded search, yielded in index order. With at least as many primes as
 * threads, each thread takes its own index; otherwise all threads share one.
 * A stride above 1 runs one shard of a search split over many processes.
 */
export async function* searchSafePrimes(
  opts: SafePrimeSearchOptions & { count: number | bigint; startIndex?: number | bigint; stride?: number | bigint },
): AsyncGenerator<SafePrimeResult, void, undefined> {
  yield* runSearch(parseOptions(opts), opts);
}

/**
 * The least safe prime p ≡ 23 (mod 24) at or after the start point of index 0
 * of the seeded search (in its stream order): what DH parameters with g = 2
 * need. The sieve strikes the other class, so it costs one prime, not two.
 */
export async function findSafePrime23Mod24(opts: SafePrimeSearchOptions): Promise<SafePrimeResult> {
  const p = parseOptions(opts, true);
  for await (const r of runSearch(p, { count: 1 })) return r;
  // runSearch yields `count` results or throws.
  throw new InternalError('a search for one prime ended without one');
}

async function* runSearch(
  p: Parsed,
  opts: { count: number | bigint; startIndex?: number | bigint; stride?: number | bigint },
): AsyncGenerator<SafePrimeResult, void, undefined> {
  const count = checkCount('count', opts.count);
  const startIndex = opts.startIndex === undefined ? 0n : parseIndex('startIndex', opts.startIndex);
  const stride = opts.stride === undefined ? 1n : parseBigInt('stride', opts.stride);
  if (stride < 1n || stride >= INDEX_LIMIT) throw argumentError(RangeError, 'stride', `must be from 1 to 2^64 - 1 (got ${stride})`);
  if (startIndex + (count - 1n) * stride >= INDEX_LIMIT) {
    throw new RangeError(`the last index, startIndex + (count - 1) * stride, must be below 2^64 (got ${startIndex} + ${count - 1n} * ${stride})`);
  }
  if (p.signal?.aborted) throw abortReason(p.signal);

  const end = startIndex + count * stride;
  const started = performance.now();
  const active = new Map<bigint, IndexRun>();
  let found = 0;
  let doneSieved = 0n;
  let doneTested = 0n;
  const stopAll = (): void => {
    for (const run of active.values()) shared.stop(run.shared);
  };
  p.signal?.addEventListener('abort', stopAll, { once: true });
  const timer = p.onProgress
    ? setInterval(() => {
        let sieved = doneSieved;
        let tested = doneTested;
        for (const run of active.values()) {
          sieved += shared.work(run.shared);
          tested += shared.work2(run.shared);
        }
        p.onProgress!({ found, sieved: Number(sieved), tested: Number(tested), elapsedMs: Math.round(performance.now() - started) });
      }, PROGRESS_MS)
    : undefined;
  timer?.unref();

  // Each pool thread takes its own index when there are enough of them, else
  // all threads share one index. A thread that finishes its index starts the
  // next one at once, even while an earlier index is still running; results
  // wait in `done` to be yielded in index order (read-ahead is bounded).
  let next = startIndex;
  const perIndex = count >= BigInt(p.threads) ? 1 : p.threads;
  const running = perIndex === 1 ? Math.min(p.threads, poolSize()) : 1;
  const readAhead = BigInt(4 * running) * stride;
  let busy = 0;
  // Set when the caller leaves (break, error, abort): a run that settles then must not start another.
  let closed = false;
  const launch = (yielded: bigint): void => {
    while (!closed && busy < running && next < end && next < yielded + readAhead) {
      const run = new IndexRun(p, next, perIndex);
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
        if (p.signal?.aborted) throw abortReason(p.signal);
        throw err;
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
    clearInterval(timer);
    p.signal?.removeEventListener('abort', stopAll);
    // Leaving early (break, error, abort): start nothing more, stop what is still running and let it wind down.
    closed = true;
    stopAll();
    await Promise.allSettled([...active.values()].map((r) => r.done));
  }
}

export interface RangeSearchOptions {
  bits: number;
  seed: bigint | string;
  /** Decimal strings are taken too (as job data carries them). */
  index: number | bigint | string;
  /** Stream offsets [from, to) of the index (clipped to the stream's end). */
  from: number | bigint | string;
  to: number | bigint | string;
  threads?: number;
  backend?: BackendChoice;
  rounds?: number;
  signal?: AbortSignal;
}

export interface RangeOutcome {
  /** The lowest offset in the range holding a safe prime, and that prime; null when none does. */
  offset: bigint | null;
  prime: bigint | null;
  /** Candidates sieved and tested. */
  sieved: number;
  tested: number;
}

/**
 * One range of an index's candidate stream searched on the pool, lowest
 * first. Ranges are defined by stream offsets alone, so a range's outcome is
 * the same whatever backend or thread count ran it: prime number `index` is
 * the one found in the lowest range that finds any. This is the unit of work
 * that is handed to other machines.
 */
export async function searchSafePrimeRange(opts: RangeSearchOptions): Promise<RangeOutcome> {
  const p = parseOptions(opts);
  const index = parseIndex('index', opts.index);
  const from = parseBigInt('from', opts.from);
  const to = parseBigInt('to', opts.to);
  if (from < 0n) throw argumentError(RangeError, 'from', `must not be negative (got ${from})`);
  if (to < from) throw new RangeError(`to must not be below from (got ${from}..${to})`);
  if (p.signal?.aborted) throw abortReason(p.signal);
  const run = new RangeRun(p, index, Math.min(p.threads, poolSize()), from, to, true);
  const stop = (): void => shared.stop(run.shared);
  p.signal?.addEventListener('abort', stop, { once: true });
  try {
    const r = await run.done;
    return { ...r, sieved: Number(shared.work(run.shared)), tested: Number(shared.work2(run.shared)) };
  } catch (err) {
    if (p.signal?.aborted) throw abortReason(p.signal);
    throw err;
  } finally {
    p.signal?.removeEventListener('abort', stop);
  }
}

/** The first prime (index 0, or `index`) of a seeded search: all threads on one index. */
export async function findSafePrime(opts: SafePrimeSearchOptions & { index?: number | bigint }): Promise<bigint> {
  if (opts === null || typeof opts !== 'object') throw new TypeError('options must be an object with at least {bits}');
  const index = opts.index === undefined ? 0n : parseIndex('index', opts.index);
  for await (const r of searchSafePrimes({ ...opts, count: 1, startIndex: index })) return r.prime;
  // searchSafePrimes yields `count` results or throws.
  throw new InternalError('a search for one prime ended without one');
}

export interface SliceOptions {
  bits: number;
  seed: bigint | string;
  index: number | bigint;
  /** Which slice of the index's stream: offsets [slice·length, (slice+1)·length). */
  slice: number | bigint;
  backend?: BackendChoice;
  rounds?: number;
}

export interface SliceOutcome {
  /** The lowest safe prime of the slice, or null. */
  prime: bigint | null;
  /** Its offset in the index's stream (lower offsets win across slices). */
  offset: bigint | null;
  sliceLength: number;
  sieved: number;
  tested: number;
}

/**
 * The unit of work the pool hands out (and a distributed mode could):
 * one slice of index i's candidate stream, searched on this thread.
 */
export function searchSafePrimeSlice(opts: SliceOptions): SliceOutcome {
  if (opts === null || typeof opts !== 'object') throw new TypeError('options must be an object with {bits, seed, index, slice}');
  const bits = checkInteger('bits', opts.bits, MIN_SEARCH_BITS, MAX_SEARCH_BITS);
  const seed = parseSeed('seed', opts.seed);
  const index = parseIndex('index', opts.index);
  const slice = parseBigInt('slice', opts.slice);
  if (slice < 0n) throw argumentError(RangeError, 'slice', 'must not be negative');
  const backend = resolveBackend(checkOneOf('backend', opts.backend ?? 'auto', BACKEND_CHOICES));
  const rounds = checkRounds('rounds', opts.rounds);
  const st = new IndexStream(bits, seed, index, backend, rounds);
  const len = BigInt(sliceLengthFor(bits, backend));
  const v0 = slice * len;
  const v1 = v0 + len < st.length ? v0 + len : st.length;
  if (v0 >= st.length) return { prime: null, offset: null, sliceLength: Number(len), sieved: 0, tested: 0 };
  let r: { found: bigint | null; sieved: number; tested: number };
  try {
    r = st.searchSlice(v0, v1);
  } finally {
    st.close();
  }
  return { prime: r.found === null ? null : st.candidate(r.found), offset: r.found, sliceLength: Number(len), sieved: r.sieved, tested: r.tested };
}

