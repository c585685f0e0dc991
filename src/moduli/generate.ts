/**
 * OpenSSH moduli from the seeded safe-prime search: prime i of size `bits`
 * is the least safe prime with a generator by ssh-keygen's rule at or after
 * start(bits, seed, i) (src/prime/search.ts, searchModuliPrimes), so a rerun
 * with the same seed gives the same moduli, only the timestamps differ.
 *
 * What the tests and tries fields say, and why (docs/moduli.md): every line
 * was sieved (0x02) and q = (p−1)/2 passed Miller–Rabin rounds (0x04): the
 * strong base-2 round of Baillie–PSW and `rounds` more on bases derived from
 * q, so tries = rounds + 1; q also passed the strong Lucas test, and p was
 * proved prime from q by Pocklington's criterion, which the format has no
 * bit for.
 */
import { InternalError } from '../errors.ts';
import { defaultRounds } from '../prime/primality.ts';
import { SEARCH_SAFE_PRIMES_OPTIONS, searchModuliPrimes, type SearchSafePrimesOptions } from '../prime/search.ts';
import { checkInteger, checkRounds } from '../validate.ts';
import { checkRequiredOptions } from '../option-checks.ts';
import { formatModuliLine, MODULI_MAX_BITS, MODULI_MIN_BITS, MODULI_TESTS_MILLER_RABIN, MODULI_TESTS_SIEVE, MODULI_TYPE_SAFE, moduliTimestamp, sshGenerator, type ModuliEntry } from './format.ts';

/** A search's options (searchSafePrimes'), one size from 2048 to 8192 bits. */
export type GenerateModuliOptions = Omit<SearchSafePrimesOptions, 'stream'>;
/** Moduli always run the latest stream: a stream chosen here would only be one more thing to match on resume. */
const GENERATE_MODULI_OPTIONS = SEARCH_SAFE_PRIMES_OPTIONS.filter((k) => k !== 'stream');

export interface GeneratedModulus {
  /** The moduli(5) entry, timestamped when it was found. */
  entry: ModuliEntry;
  /** The entry as one line, without a newline. */
  line: string;
  prime: bigint;
  generator: 2 | 5;
  bits: number;
  seed: bigint;
  index: bigint;
  /** Wall time spent on this index. */
  elapsedMs: number;
}

/** Miller–Rabin rounds the search runs on q for a given `rounds` option (-1: the default), as the tries field counts them. */
export function moduliTries(bits: number, rounds: number): number {
  return 1 + (rounds < 0 ? defaultRounds(bits - 1) : rounds);
}

/**
 * Moduli number startIndex, startIndex+stride, … (count of them) of one size,
 * in index order, each with its moduli(5) line.
 */
export async function* generateModuli(opts: GenerateModuliOptions): AsyncGenerator<GeneratedModulus, void, undefined> {
  checkRequiredOptions('options', opts, 'generateModuli', GENERATE_MODULI_OPTIONS, 'must be an object with at least {bits, count}');
  checkInteger('bits', opts.bits, MODULI_MIN_BITS, MODULI_MAX_BITS);
  const rounds = checkRounds('rounds', opts.rounds);
  for await (const r of searchModuliPrimes(opts)) {
    const entry = moduliEntry(r.prime, r.bits, rounds);
    yield { entry, line: formatModuliLine(entry), prime: r.prime, generator: entry.generator as 2 | 5, bits: r.bits, seed: r.seed, index: r.index, elapsedMs: r.elapsedMs };
  }
}

/** The moduli(5) entry of a safe prime the search gave, timestamped now; `rounds` as the search ran them (-1: the default). */
export function moduliEntry(prime: bigint, bits: number, rounds: number): ModuliEntry {
  const generator = sshGenerator(prime);
  // The sieve struck every prime without one; this would be a broken sieve, not bad input.
  if (generator === null) throw new InternalError(`the search gave ${prime.toString(16)}, which has no ssh-keygen generator`);
  return {
    timestamp: moduliTimestamp(new Date()),
    type: MODULI_TYPE_SAFE,
    tests: MODULI_TESTS_SIEVE | MODULI_TESTS_MILLER_RABIN,
    tries: moduliTries(bits, rounds),
    size: bits - 1,
    generator,
    modulus: prime,
  };
}
