/** The search for prime number `index`: its stream (index-stream.ts) cut into slices, shared by pool threads (pool/claim-loop.ts), and what a thread keeps between tasks. */
import type { Backend } from '../backend.ts';
import type { NativeSieve } from '../native-binding.ts';
import { claimLoop, type ChunkResult } from '../pool/claim-loop.ts';
import { shared, type SharedSearch } from '../pool/shared-search.ts';
import type { StreamVersion } from './stream.ts';
import type { Keep } from './sieve.ts';
import { IndexStream } from './index-stream.ts';
import { sliceLength } from './tuning.ts';

export interface IndexTask {
  kind: 'safe-prime';
  bits: number;
  seed: bigint;
  index: bigint;
  backend: Backend;
  rounds: number;
  stream: StreamVersion;
  /** The class of candidates that counts (dhparam: p ≡ 23 mod 24; moduli: an ssh-keygen generator). */
  keep: Keep;
  /** The shared positions are stream offsets from here (0: the whole index). */
  from: bigint;
  shared: SharedSearch;
  /** More ranges of this index are likely to follow on this thread (a queue worker's chunks): keep its sieves (see `kept`). */
  linger: boolean;
  /** Indexes of this size the thread expects to search in a row: how deep its sieve pays to go (sieve-depth.ts). */
  indexesAhead: number;
  /** Slots of the native sieve's far blocks: the starts the search's threads will visit from here (sieve-depth.ts farSlots). */
  farSlots: number;
  /** Index positions from this one to the run's last, this one included (Infinity: no end known): whether a far block keeps its roots for the next (sieve-depth.ts deepPlan). */
  indexesLeft: number;
  /** Candidates a queue worker's chunk searches with a sieve of its own (0: not a chunk): its depth is chosen for that chunk (sieve-depth.ts). */
  chunkCandidates: number;
  /** Slices this thread claims at once (tuning.ts slicesPerClaim): more for the thread that started the index alone, one for a thread joining it. */
  slicesPerClaim: number;
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
let keptSieve: { sieve: NativeSieve; bits: number; rounds: number; keep: Keep } | null = null;

function sameStream(is: IndexStream, task: IndexTask): boolean {
  return (
    is.bits === task.bits &&
    is.seed === task.seed &&
    is.index === task.index &&
    is.backend === task.backend &&
    is.rounds === task.rounds &&
    is.version === task.stream &&
    is.keep === task.keep &&
    is.indexesAhead === task.indexesAhead &&
    is.farSlots === task.farSlots &&
    is.chunkCandidates === task.chunkCandidates &&
    is.indexesLeft === task.indexesLeft
  );
}

/** Keeps the stream's run-0 native sieve for the next index (the one kept before, if any, closed), then closes the stream. */
function retire(is: IndexStream): void {
  const s = is.takeRun0();
  if (s) {
    keptSieve?.sieve.close();
    keptSieve = { sieve: s, bits: is.bits, rounds: is.rounds, keep: is.keep };
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
  const is = new IndexStream(task.bits, task.seed, task.index, task.backend, task.rounds, task.stream, task.keep, task.indexesAhead, task.farSlots, task.chunkCandidates, task.indexesLeft);
  is.chunksPerSieve = chunksPerSieve();
  const k = keptSieve;
  keptSieve = null;
  if (k && task.backend === 'native' && k.bits === task.bits && k.rounds === task.rounds && k.keep === task.keep) is.previous = k.sieve;
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
