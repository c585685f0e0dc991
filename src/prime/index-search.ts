/** The search for prime number `index`: its stream cut into slices, sieved and tested natively or in TS, shared by pool threads (pool/claim-loop.ts). */
import type { Backend } from '../backend.ts';
import { BackendUnavailableError, InternalError } from '../errors.ts';
import { native, nativeLoadError, type NativeSieve } from '../native.ts';
import { claimLoop, type ChunkResult } from '../pool/claim-loop.ts';
import { shared, type SharedSearch } from '../pool/shared-search.ts';
import { SafePrimeSieveJs, type SliceResult } from './sieve.ts';
import { candidateAt, stream, type Stream, type StreamVersion } from './stream.ts';
import { deepPlan, sieveLimit } from './sieve-depth.ts';
import { sliceLength } from './tuning.ts';

export interface IndexTask {
  kind: 'safe-prime';
  bits: number;
  seed: bigint;
  index: bigint;
  backend: Backend;
  rounds: number;
  stream: StreamVersion;
  /** Only p ≡ 23 (mod 24) counts (DH parameters with g = 2). */
  only23Mod24: boolean;
  /** The shared positions are stream offsets from here (0: the whole index). */
  from: bigint;
  shared: SharedSearch;
  /** More ranges of this index are likely to follow on this thread (a queue worker's chunks): keep its sieves (see `kept`). */
  linger: boolean;
  /** Indexes of this size the thread expects to search in a row: how deep its sieve pays to go (sieve-depth.ts). */
  indexesAhead: number;
  /** Slots of the native sieve's far blocks: the starts the search's threads will visit from here (sieve-depth.ts farSlots). */
  farSlots: number;
  /** Candidates a queue worker's chunk searches with a sieve of its own (0: not a chunk): its depth is chosen for that chunk (sieve-depth.ts). */
  chunkCandidates: number;
  /** Slices this thread claims at once (tuning.ts slicesPerClaim): more for the thread that started the index alone, one for a thread joining it. */
  slicesPerClaim: number;
}

interface Sieve {
  search(j0: number, j1: number, stop?: BigUint64Array): SliceResult;
  /** Frees the sieve's tables now (idempotent); a later search throws. */
  close(): void;
}

/** `previous` (native only) is consumed: its deep roots are shifted when its start lies 12·δ below (safe_prime_sieve.h), its far block shared or followed (far_sieve.h). */
function makeSieve(is: IndexStream, start: bigint, previous?: NativeSieve): Sieve {
  const { backend, bits, rounds, only23Mod24, indexesAhead, farSlots } = is;
  if (backend === 'js') return new SafePrimeSieveJs(start, sieveLimit(bits, backend), rounds, only23Mod24);
  const n = native();
  if (!n) throw new BackendUnavailableError('native', `not loaded in this worker thread: ${nativeLoadError()}`);
  return new n.SafePrimeSieve(
    start,
    sieveLimit(bits, backend, { indexesAhead, chunkCandidates: is.chunkCandidates * is.chunksPerSieve }),
    rounds < 0 ? undefined : rounds,
    only23Mod24,
    previous,
    deepPlan(bits, is.version, farSlots),
  );
}

/**
 * The index's stream as two contiguous runs: from the first candidate up to 2^bits, then (after
 * the wrap) from lo. Sieves are built on first use and kept until close(): a native sieve holds
 * megabytes outside the JS heap, so whoever searches a stream closes it, never the collector.
 */
export class IndexStream {
  readonly st: Stream;
  private readonly upper: bigint;
  private sieves: [Sieve | null, Sieve | null] = [null, null];
  private closed = false;
  /** A previous index's run-0 native sieve, consumed by this stream's run-0 sieve (see keptSieve). */
  previous: NativeSieve | null = null;
  /** For a chunk's stream: the chunks its sieve is expected to serve (see chunksPerSieve), which its depth pays for. */
  chunksPerSieve = 1;

  constructor(
    readonly bits: number,
    readonly seed: bigint,
    readonly index: bigint,
    readonly backend: Backend,
    readonly rounds: number,
    readonly version: StreamVersion,
    readonly only23Mod24 = false,
    readonly indexesAhead = Number.POSITIVE_INFINITY,
    readonly farSlots = 1,
    readonly chunkCandidates = 0,
  ) {
    this.st = stream(bits, seed, index, version);
    this.upper = this.st.count - this.st.first;
  }

  /** Visit offsets run from 0 to this (exclusive). */
  get length(): bigint {
    return this.st.count;
  }

  /** The candidate visited at offset v. */
  candidate(v: bigint): bigint {
    return v < this.upper ? candidateAt(this.st, this.st.first + v) : candidateAt(this.st, v - this.upper);
  }

  /** Frees the sieves now; idempotent. candidate() still works, searchSlice() throws. */
  close(): void {
    this.closed = true;
    for (const s of this.sieves) s?.close();
    this.sieves = [null, null];
    this.previous?.close();
    this.previous = null;
  }

  /** The run-0 native sieve, taken out of this stream (which no longer closes it), or null. */
  takeRun0(): NativeSieve | null {
    const s = this.backend === 'native' ? (this.sieves[0] as NativeSieve | null) : null;
    this.sieves[0] = null;
    return s;
  }

  private sieve(run: 0 | 1): Sieve {
    if (this.closed) throw new InternalError('an IndexStream was searched after close()');
    if (this.sieves[run]) return this.sieves[run];
    const start = run === 0 ? candidateAt(this.st, this.st.first) : this.st.lo;
    const previous = run === 0 ? (this.previous ?? undefined) : undefined;
    if (run === 0) this.previous = null;
    return (this.sieves[run] = makeSieve(this, start, previous));
  }

  /** Lowest visit offset in [v0, v1) holding a safe prime, or null; with the work done. A set `stop` flag ends it early (result meaningless). */
  searchSlice(v0: bigint, v1: bigint, stop?: BigUint64Array): { found: bigint | null; sieved: number; tested: number } {
    let sieved = 0;
    let tested = 0;
    const runs: [0 | 1, bigint, bigint, bigint][] = [];
    if (v0 < this.upper) runs.push([0, v0, v1 < this.upper ? v1 : this.upper, 0n]);
    if (v1 > this.upper) runs.push([1, v0 > this.upper ? v0 : this.upper, v1, this.upper]);
    for (const [run, a, b, base] of runs) {
      const r = this.sieve(run).search(Number(a - base), Number(b - base), stop);
      sieved += r.sieved;
      tested += r.tested;
      if (r.stopped) return { found: null, sieved, tested };
      if (r.found !== null) return { found: BigInt(r.found) + base, sieved, tested };
    }
    return { found: null, sieved, tested };
  }
}

/**
 * This thread's stream kept from a range task (see IndexTask.linger). A pool
 * thread waiting for work runs no timers, so it is closed by the thread's
 * next search task (unless that task continues it) or, when the idle thread
 * ends, by the addon's finalizer: at most one stream per thread is kept.
 */
let kept: IndexStream | null = null;

/**
 * This thread's chunk tasks, and those that needed a stream of their own
 * (the kept one was of another index): their ratio is how many chunks a
 * chunk's sieve serves here. A coordinator with many indexes open hands a
 * worker each chunk of a different one; with one index open (one large
 * prime), every chunk continues the kept stream, and a deep sieve pays.
 * Halved now and then, so the estimate follows a run whose mix changes.
 */
let chunkTasks = 0;
let chunkStreams = 0;

function chunksPerSieve(): number {
  return chunkStreams === 0 ? 1 : chunkTasks / chunkStreams;
}

/**
 * The run-0 native sieve of the index this thread finished last: stream v2
 * starts consecutive indexes 12·M·Δ apart, so the next index's run-0 sieve
 * derives its deep roots from it (a reduction a deep prime, not a residue).
 * Like `kept`, at most one a thread, closed by a next task that does not fit
 * or by the addon's finalizer; 4 bytes a deep prime (safe_prime_sieve.h).
 */
let keptSieve: { sieve: NativeSieve; bits: number; rounds: number; only23Mod24: boolean } | null = null;

function sameStream(is: IndexStream, task: IndexTask): boolean {
  return (
    is.bits === task.bits &&
    is.seed === task.seed &&
    is.index === task.index &&
    is.backend === task.backend &&
    is.rounds === task.rounds &&
    is.version === task.stream &&
    is.only23Mod24 === task.only23Mod24 &&
    is.indexesAhead === task.indexesAhead &&
    is.farSlots === task.farSlots &&
    is.chunkCandidates === task.chunkCandidates
  );
}

/** Keeps the stream's run-0 native sieve for the next index (the one kept before, if any, closed), then closes the stream. */
function retire(is: IndexStream): void {
  const s = is.takeRun0();
  if (s) {
    keptSieve?.sieve.close();
    keptSieve = { sieve: s, bits: is.bits, rounds: is.rounds, only23Mod24: is.only23Mod24 };
  }
  is.close();
}

/** The kept stream when it fits the task, else a new one (the kept one, if any, retired), given the kept sieve when it fits. */
function streamFor(task: IndexTask): IndexStream {
  let reuse = kept !== null && sameStream(kept, task) ? kept : null;
  if (!reuse && kept) retire(kept);
  kept = null;
  if (task.chunkCandidates) {
    if (chunkTasks >= 256) [chunkTasks, chunkStreams] = [chunkTasks / 2, chunkStreams / 2];
    chunkTasks++;
    if (!reuse) chunkStreams++;
    // The chunks this sieve serves turned out twice as many as it was made for: a deeper one now pays (no result depends on depth).
    if (reuse && chunksPerSieve() >= 2 * reuse.chunksPerSieve) {
      reuse.close();
      reuse = null;
    }
  }
  if (reuse) return reuse;
  const is = new IndexStream(task.bits, task.seed, task.index, task.backend, task.rounds, task.stream, task.only23Mod24, task.indexesAhead, task.farSlots, task.chunkCandidates);
  is.chunksPerSieve = chunksPerSieve();
  const k = keptSieve;
  keptSieve = null;
  if (k && task.backend === 'native' && k.bits === task.bits && k.rounds === task.rounds && k.only23Mod24 === task.only23Mod24) is.previous = k.sieve;
  else k?.sieve.close();
  return is;
}

/** One pool thread's share of an index: its slices, claimed lowest first; work is candidates sieved, then tested. */
export function searchIndex(task: IndexTask): void {
  const is = streamFor(task);
  try {
    const search = (v0: bigint, v1: bigint): ChunkResult => {
      const r = is.searchSlice(task.from + v0, task.from + v1, shared.stopFlag(task.shared));
      return { found: r.found === null ? null : r.found - task.from, work: BigInt(r.sieved), work2: BigInt(r.tested) };
    };
    claimLoop(task.shared, BigInt(sliceLength(task.bits, task.backend)), search, BigInt(task.slicesPerClaim));
  } finally {
    if (task.linger) kept = is;
    else retire(is);
  }
}
