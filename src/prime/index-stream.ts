/** An index's candidate stream as the sieves search it, natively or in TS: what one pool thread holds of an index (index-search.ts keeps it between tasks). */
import type { Backend } from '../backend.ts';
import { BackendUnavailableError, InternalError } from '../errors.ts';
import type { NativeSieve } from '../native-binding.ts';
import { native, nativeLoadError } from '../native.ts';
import { KEEP_CODE, SafePrimeSieveJs, type Keep, type SliceResult } from './sieve.ts';
import { candidateAt, stream, type Stream, type StreamVersion } from './stream.ts';
import { deepPlan, sieveLimit } from './sieve-depth.ts';
import { chunkSieveLimit } from './chunk-depth.ts';

interface Sieve {
  search(j0: number, j1: number, stop?: BigUint64Array): SliceResult;
  /** Frees the sieve's tables now (idempotent); a later search throws. */
  close(): void;
}

/** `previous` (native only) is consumed: its deep roots are shifted when its start lies 12·δ below (safe_prime_sieve.h), its far block shared or followed (far_sieve.h). */
function makeSieve(is: IndexStream, start: bigint, previous?: NativeSieve): Sieve {
  const { backend, bits, rounds, keep, indexesAhead, farSlots } = is;
  if (backend === 'js') return new SafePrimeSieveJs(start, sieveLimit(bits, backend), rounds, keep);
  const n = native();
  if (!n) throw new BackendUnavailableError('native', `not loaded in this worker thread: ${nativeLoadError()}`);
  return new n.SafePrimeSieve(
    start,
    is.chunkCandidates ? chunkSieveLimit(bits, backend, is.chunkCandidates * is.chunksPerSieve) : sieveLimit(bits, backend, { indexesAhead }),
    rounds < 0 ? undefined : rounds,
    KEEP_CODE[keep],
    previous,
    deepPlan(bits, is.version, farSlots, is.indexesLeft),
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
    readonly keep: Keep = 'all',
    readonly indexesAhead = Number.POSITIVE_INFINITY,
    readonly farSlots = 1,
    readonly chunkCandidates = 0,
    readonly indexesLeft = Number.POSITIVE_INFINITY,
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
