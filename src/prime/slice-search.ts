/** One slice of an index's candidate stream, searched on the calling thread. */
import type { BackendChoice } from '../backend.ts';
import { checkRequiredOptions, optionNames } from '../option-checks.ts';
import { IndexStream } from './index-stream.ts';
import { parseSliceOptions } from './search-options.ts';
import type { StreamVersion } from './stream.ts';
import { sliceLength as sliceLengthFor } from './tuning.ts';

export interface SliceOptions {
  bits: number;
  seed: bigint | string;
  index: number | bigint;
  /** Which slice of the index's stream: offsets [slice·length, (slice+1)·length). */
  slice: number | bigint;
  backend?: BackendChoice;
  rounds?: number;
  /** The stream version (default 2; see src/prime/stream.ts). */
  stream?: StreamVersion;
}

/** Every option of searchSafePrimeSlice: any other key is refused. */
export const SLICE_OPTIONS = optionNames<SliceOptions>()(['bits', 'seed', 'index', 'slice', 'backend', 'rounds', 'stream']);

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
 * The unit of work pool threads claim (a thread alone on its index claims
 * several at once, tuning.ts slicesPerClaim; a distributed mode could hand
 * out single ones): one slice of index i's candidate stream, searched on
 * this thread.
 */
export function searchSafePrimeSlice(opts: SliceOptions): SliceOutcome {
  checkRequiredOptions('options', opts, 'searchSafePrimeSlice', SLICE_OPTIONS, 'must be an object with {bits, seed, index, slice}');
  const { bits, seed, index, slice, backend, rounds, stream } = parseSliceOptions(opts);
  // One slice, searched once: a sieve no deeper than a single index repays, and no roots kept for another.
  const st = new IndexStream(bits, seed, index, backend, rounds, stream, 'all', 1, 1, 0, 1);
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
