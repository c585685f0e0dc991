/**
 * Seeded safe-prime search on the pool. Prime number i of a search is the
 * least safe prime at or after start(bits, seed, i) in its stream (see
 * stream.ts), so results are keyed by (bits, seed, index): the same for any
 * backend and thread count, and any index can be computed (or resumed) alone.
 */
import { InternalError } from '../errors.ts';
import type { SafePrimeResult } from './runs.ts';
import { runSearch } from './scheduler.ts';
import { parseIndex, parseOptions, SEARCH_OPTIONS, type SafePrimeSearchOptions } from './search-options.ts';
import { checkRequiredOptions, optionNames } from '../option-checks.ts';

/** The options of searchSafePrimes: a search's, and which of its primes to yield. */
export type SearchSafePrimesOptions = SafePrimeSearchOptions & { count: number | bigint; startIndex?: number | bigint; stride?: number | bigint };
export const SEARCH_SAFE_PRIMES_OPTIONS = optionNames<SearchSafePrimesOptions>()([...SEARCH_OPTIONS, 'count', 'startIndex', 'stride']);

/** The options of findSafePrime: a search's, and the index of the prime. */
export type FindSafePrimeOptions = SafePrimeSearchOptions & { index?: number | bigint };
export const FIND_SAFE_PRIME_OPTIONS = optionNames<FindSafePrimeOptions>()([...SEARCH_OPTIONS, 'index']);

/**
 * Safe primes number startIndex, startIndex+stride, … (count of them) of the
 * seeded search, yielded in index order. With at least as many primes as
 * threads, each thread takes its own index; otherwise all threads share one.
 * A stride above 1 runs one shard of a search split over many processes.
 */
export async function* searchSafePrimes(opts: SearchSafePrimesOptions): AsyncGenerator<SafePrimeResult, void, undefined> {
  checkRequiredOptions('options', opts, 'searchSafePrimes', SEARCH_SAFE_PRIMES_OPTIONS, 'must be an object with at least {bits, count}');
  yield* runSearch(parseOptions(opts), opts);
}

/**
 * The least safe prime p ≡ 23 (mod 24) at or after the start point of index 0
 * of the seeded search (in its stream order): what DH parameters with g = 2
 * need. The sieve strikes the other class, so it costs one prime, not two.
 */
export async function findSafePrime23Mod24(opts: SafePrimeSearchOptions): Promise<SafePrimeResult> {
  const p = parseOptions(opts, '23mod24');
  for await (const r of runSearch(p, { count: 1 })) return r;
  // runSearch yields `count` results or throws.
  throw new InternalError('a search for one prime ended without one');
}

/**
 * Safe primes with a generator by ssh-keygen's rule (p ≢ 119 mod 120), as
 * searchSafePrimes yields its own: prime i is the least such prime at or
 * after start(bits, seed, i). The sieve strikes the other class (every tenth
 * candidate), so no prime is found only to be dropped. Bits unchecked beyond
 * the search's own range: src/moduli holds the moduli sizes.
 */
export async function* searchModuliPrimes(opts: SearchSafePrimesOptions): AsyncGenerator<SafePrimeResult, void, undefined> {
  checkRequiredOptions('options', opts, 'generateModuli', SEARCH_SAFE_PRIMES_OPTIONS, 'must be an object with at least {bits, count}');
  yield* runSearch(parseOptions(opts, 'sshGenerator'), opts);
}

/** The first prime (index 0, or `index`) of a seeded search: all threads on one index. */
export async function findSafePrime(opts: FindSafePrimeOptions): Promise<bigint> {
  checkRequiredOptions('options', opts, 'findSafePrime', FIND_SAFE_PRIME_OPTIONS, 'must be an object with at least {bits}');
  const { index: given, ...search } = opts;
  const index = given === undefined ? 0n : parseIndex('index', given);
  for await (const r of runSearch(parseOptions(search), { count: 1, startIndex: index })) return r.prime;
  // runSearch yields `count` results or throws.
  throw new InternalError('a search for one prime ended without one');
}
