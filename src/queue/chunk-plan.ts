/**
 * How a seeded safe-prime search is cut into chunk jobs and put back
 * together. Pure bookkeeping (no Redis), so its rules can be read and tested
 * alone.
 *
 * Chunk c of index i is stream offsets [c·L, (c+1)·L) of that index, with L
 * fixed per bit length (tuning.ts chunkLength): its outcome — the lowest safe
 * prime in it, or none — is the same whoever computes it. Prime number i is
 * the one in the lowest chunk that holds any, so index i is settled once a
 * chunk has found a prime and every chunk below it has come back empty.
 */
import { NoSafePrimeError, QueueJobFailedError } from '../errors.ts';
import { stream, type StreamVersion } from '../prime/stream.ts';
import { keeps, type Keep } from '../prime/sieve.ts';
import { chunkLength } from '../prime/tuning.ts';

/** A chunk job's data: strings, since job data cannot carry bigints. */
export interface ChunkData {
  bits: number;
  seed: string;
  index: string;
  from: string;
  to: string;
  /** The stream version (src/prime/stream.ts); absent in jobs of version 1. */
  stream?: number;
  /** The class of safe primes that counts (src/prime/sieve.ts Keep); absent when every safe prime does. */
  keep?: string;
  /**
   * Set by a coordinator that saw a lower chunk of the index find a prime:
   * the worker skips it. A cancelled job keeps its id, so a second
   * coordinator of the same search that adds it again adds nothing.
   */
  cancelled?: boolean;
}

/** A chunk job's return value. */
export interface ChunkOutcome {
  /** Lowest offset in the chunk holding a safe prime, and the prime (decimal), or null. */
  offset: string | null;
  prime: string | null;
  sieved: number;
  tested: number;
  /** Wall time the worker spent on it. */
  ms: number;
  worker: string;
  /** Skipped, not searched: `offset` and `prime` say nothing about the chunk. */
  cancelled?: boolean;
}

export interface Chunk {
  id: string;
  index: bigint;
  chunk: bigint;
  data: ChunkData;
}

export interface SettledIndex {
  index: bigint;
  prime: bigint;
  /** Worker time spent on the index's chunks up to the one that found it. */
  elapsedMs: number;
}

/** The job id of a chunk: readable, never integer-like, no ':' (both refused by the queue). */
export function chunkId(bits: number, seed: bigint, index: bigint, from: bigint, length: bigint, stream: StreamVersion = 1, keep: Keep = 'all'): string {
  // Version 1's ids are unchanged, so its jobs already queued are still found.
  return `b${bits}-s${seed.toString(16)}-i${index}-o${from}-n${length}${stream === 1 ? '' : `-v${stream}`}${keep === 'all' ? '' : `-k${keep}`}`;
}

interface IndexState {
  /** Next chunk number to hand out. */
  next: bigint;
  /** Outcomes by chunk number: the prime found there, or null. */
  outcomes: Map<bigint, bigint | null>;
  ms: Map<bigint, number>;
  /** Lowest chunk known to hold a prime: nothing above it is handed out. */
  foundAt: bigint | null;
  settled: SettledIndex | null;
}

export interface ChunkPlanOptions {
  bits: number;
  seed: bigint;
  /** Indexes startIndex, startIndex+stride, …: count of them. */
  startIndex: bigint;
  stride: bigint;
  count: bigint;
  /** Candidates per chunk (default by bit length); part of every job id, so runs that differ never share jobs. */
  length?: bigint | undefined;
  /** The stream version (default 1); part of every job id and job, so versions never share jobs. */
  stream?: StreamVersion;
  /** The class of safe primes that counts (default all); part of every job id and job, as the version is. */
  keep?: Keep;
}

export class ChunkPlan {
  readonly length: bigint;
  /** Chunks per index (the last may be short). */
  readonly chunksPerIndex: bigint;
  private readonly states = new Map<bigint, IndexState>();
  private readonly inflight = new Map<string, Chunk>();
  /** Indexes still to settle, in order; [0] is the next to be emitted. */
  private readonly pending: bigint[] = [];
  private nextIndex: bigint;
  private left: bigint;

  readonly bits: number;
  readonly seed: bigint;
  readonly stride: bigint;
  readonly version: StreamVersion;
  readonly keep: Keep;

  constructor(o: ChunkPlanOptions) {
    this.bits = o.bits;
    this.seed = o.seed;
    this.stride = o.stride;
    this.version = o.stream ?? 1;
    this.keep = o.keep ?? 'all';
    this.length = o.length ?? BigInt(chunkLength(o.bits));
    // Every version has the same candidates: the count does not depend on it.
    const total = stream(o.bits, o.seed, 0n, 1).count;
    this.chunksPerIndex = (total + this.length - 1n) / this.length;
    this.nextIndex = o.startIndex;
    this.left = o.count;
  }

  /** True once every index asked for has been emitted. */
  get finished(): boolean {
    return this.left === 0n && this.pending.length === 0;
  }

  /** Chunks handed out whose outcome is still wanted. */
  get running(): Chunk[] {
    return [...this.inflight.values()];
  }

  /**
   * Chunks to hand out so that `capacity` are in flight. Each goes to the
   * open index with the fewest chunks in flight (lowest index first): many
   * indexes each get one chunk at a time, which wastes nothing, and a single
   * index gets every chunk. Indexes open at most `4·capacity` ahead of the
   * next one to emit, which bounds the results held back for ordering.
   */
  dispatch(capacity: number): Chunk[] {
    const out: Chunk[] = [];
    const window = 4 * Math.max(capacity, 1);
    while (this.inflight.size < capacity) {
      while (this.left > 0n && this.pending.length < window) {
        this.pending.push(this.nextIndex);
        this.states.set(this.nextIndex, { next: 0n, outcomes: new Map(), ms: new Map(), foundAt: null, settled: null });
        this.nextIndex += this.stride;
        this.left--;
      }
      let best: [bigint, number] | null = null;
      const load = this.loadByIndex();
      for (const index of this.pending) {
        const st = this.states.get(index)!;
        if (st.foundAt !== null || st.next >= this.chunksPerIndex) continue;
        const n = load.get(index) ?? 0;
        if (best === null || n < best[1]) best = [index, n];
      }
      if (best === null) break;
      out.push(this.handOut(best[0]));
    }
    return out;
  }

  private loadByIndex(): Map<bigint, number> {
    const load = new Map<bigint, number>();
    for (const c of this.inflight.values()) load.set(c.index, (load.get(c.index) ?? 0) + 1);
    return load;
  }

  private handOut(index: bigint): Chunk {
    const st = this.states.get(index)!;
    const from = st.next * this.length;
    const c: Chunk = {
      id: chunkId(this.bits, this.seed, index, from, this.length, this.version, this.keep),
      index,
      chunk: st.next,
      data: {
        bits: this.bits,
        seed: this.seed.toString(),
        index: index.toString(),
        from: from.toString(),
        to: (from + this.length).toString(),
        ...(this.version === 1 ? {} : { stream: this.version }),
        ...(this.keep === 'all' ? {} : { keep: this.keep }),
      },
    };
    st.next++;
    this.inflight.set(c.id, c);
    return c;
  }

  /** Records a chunk's outcome (ignored when the chunk is no longer wanted or was recorded already). */
  complete(id: string, outcome: ChunkOutcome): void {
    const c = this.inflight.get(id);
    if (!c) return;
    this.inflight.delete(id);
    // Cancelled because a lower chunk of its index holds a prime (chunks are
    // the same for every coordinator of a search): that chunk settles it.
    if (outcome.cancelled) return;
    const st = this.states.get(c.index)!;
    const prime = outcome.prime === null ? null : BigInt(outcome.prime);
    // A worker that ignored the job's class (one older than it) would settle the index on a prime that does not count.
    if (prime !== null && !keeps(this.keep, prime)) {
      throw new QueueJobFailedError('chunk', id, 1, `worker ${outcome.worker} returned a prime outside the class its chunk keeps (${this.keep}): it runs an older powprime; upgrade it`);
    }
    st.outcomes.set(c.chunk, prime);
    st.ms.set(c.chunk, outcome.ms);
    if (prime !== null && (st.foundAt === null || c.chunk < st.foundAt)) st.foundAt = c.chunk;
    this.settle(c.index, st);
  }

  private settle(index: bigint, st: IndexState): void {
    let ms = 0;
    for (let k = 0n; k < this.chunksPerIndex; k++) {
      if (!st.outcomes.has(k)) return;
      ms += st.ms.get(k) ?? 0;
      const prime = st.outcomes.get(k)!;
      if (prime !== null) {
        st.settled = { index, prime, elapsedMs: ms };
        return;
      }
    }
    throw new NoSafePrimeError(this.bits, index);
  }

  /**
   * Chunks in flight that can no longer matter: above a chunk that found a
   * prime. They are forgotten here; the caller cancels them.
   */
  takeUseless(): Chunk[] {
    const out: Chunk[] = [];
    for (const c of this.inflight.values()) {
      const foundAt = this.states.get(c.index)!.foundAt;
      if (foundAt !== null && c.chunk > foundAt) out.push(c);
    }
    for (const c of out) this.inflight.delete(c.id);
    return out;
  }

  /** Settled indexes that can be emitted now, in index order. */
  takeReady(): SettledIndex[] {
    const out: SettledIndex[] = [];
    while (this.pending.length) {
      const st = this.states.get(this.pending[0]!)!;
      if (!st.settled) break;
      out.push(st.settled);
      this.states.delete(this.pending.shift()!);
    }
    return out;
  }
}
