/** One range of an index's candidate stream: the unit of work handed to other machines. */
import type { BackendChoice } from '../backend.ts';
import { poolSize } from '../pool/pool.ts';
import { shared } from '../pool/shared-search.ts';
import { RunLifecycle, throwIfAborted } from '../run-lifecycle.ts';
import { checkRequiredOptions, optionNames } from '../option-checks.ts';
import type { Keep } from './sieve.ts';
import { RangeRun } from './runs.ts';
import { parseRangeOptions } from './search-options.ts';

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
  /** The stream version (default 2; job data records it). */
  stream?: 1 | 2;
  /**
   * Which safe primes count (default 'all'): '23mod24' (generator 2 of a
   * prime-order subgroup, as dhparam wants) or 'sshGenerator' (those
   * ssh-keygen gives a generator, as moduli want). Job data records it.
   */
  keep?: Keep;
  signal?: AbortSignal;
}

/** Every option of searchSafePrimeRange: any other key is refused. */
export const RANGE_SEARCH_OPTIONS = optionNames<RangeSearchOptions>()(['bits', 'seed', 'index', 'from', 'to', 'threads', 'backend', 'rounds', 'stream', 'keep', 'signal']);

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
  checkRequiredOptions('options', opts, 'searchSafePrimeRange', RANGE_SEARCH_OPTIONS, 'must be an object with {bits, seed, index, from, to}');
  const { p, index, from, to } = parseRangeOptions(opts);
  throwIfAborted(p.signal);
  const run = new RangeRun({ search: p, index, threads: Math.min(p.threads, poolSize()), from, to, linger: true });
  const life = new RunLifecycle(p.signal, () => shared.stop(run.shared));
  try {
    const r = await run.done;
    return { ...r, sieved: Number(shared.work(run.shared)), tested: Number(shared.work2(run.shared)) };
  } catch (err) {
    throw life.failure(err);
  } finally {
    life.close();
  }
}
