/**
 * Seeded safe-prime search on the pool. Prime number i of a search is the
 * least safe prime at or after start(bits, seed, i) in its stream (see
 * stream.ts), so results are keyed by (bits, seed, index): the same for any
 * backend and thread count, and any index can be computed (or resumed) alone.
 */
import { InternalError } from '../errors.ts';
import type { SafePrimeResult } from './runs.ts';
import { runSearch } from './scheduler.ts';
import { parseIndex, parseOptions, type SafePrimeSearchOptions } from './search-options.ts';

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

/** The first prime (index 0, or `index`) of a seeded search: all threads on one index. */
export async function findSafePrime(opts: SafePrimeSearchOptions & { index?: number | bigint }): Promise<bigint> {
  if (opts === null || typeof opts !== 'object') throw new TypeError('options must be an object with at least {bits}');
  const index = opts.index === undefined ? 0n : parseIndex('index', opts.index);
  for await (const r of searchSafePrimes({ ...opts, count: 1, startIndex: index })) return r.prime;
  // searchSafePrimes yields `count` results or throws.
  throw new InternalError('a search for one prime ended without one');
}
