/**
 * Search result lines are checked before anything rests on them (a resumed
 * run continues from them and registers their primes; merge writes them
 * out): fields of the right form, primes of the line's bit length and of
 * the line's index (stream 2), and safe.
 * A safe-prime check is cheap next to the search that found the prime.
 */
import { MAX_SEARCH_BITS, MIN_SEARCH_BITS, SEED_LIMIT } from '../limits.ts';
import { isSafePrime } from '../prime/check.ts';
import { distanceFromStart, spacing, stream, type StreamVersion } from '../prime/stream.ts';
import type { SearchLine } from './jsonl-file.ts';
import { checkEach } from './check-each.ts';

export interface Located {
  line: SearchLine;
  /** "FILE line N", for messages. */
  where: string;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** Throws RangeError naming `where` unless the line's fields have the form search writes. */
export function checkLineFields({ line, where }: Located): void {
  const bad = (what: string): never => {
    throw new RangeError(`${where}: ${what}`);
  };
  if (!DECIMAL.test(line.seed) || BigInt(line.seed) >= SEED_LIMIT) bad(`"seed":${JSON.stringify(line.seed)} is not a decimal seed below 2^256`);
  // A search's own bounds: a line no search could write (a 5-bit "prime") is not merged or resumed.
  if (!Number.isSafeInteger(line.bits) || line.bits < MIN_SEARCH_BITS || line.bits > MAX_SEARCH_BITS) {
    bad(`"bits":${JSON.stringify(line.bits)} is not a search's bit length (${MIN_SEARCH_BITS} to ${MAX_SEARCH_BITS})`);
  }
  if (!Number.isSafeInteger(line.index) || line.index < 0) bad(`"index":${JSON.stringify(line.index)} is not an index`);
  if (line.stream !== undefined && line.stream !== 1 && line.stream !== 2) bad(`"stream":${JSON.stringify(line.stream)} is not a stream version (1 or 2)`);
  if (!DECIMAL.test(line.prime)) bad(`"prime":${JSON.stringify(line.prime)} is not a decimal number`);
  const prime = BigInt(line.prime);
  const length = prime.toString(2).length;
  if (length !== line.bits) bad(`"prime":"${line.prime}" has ${length} bits, not ${line.bits}`);
  // Stream 2 gives each index its share of the candidates, and its prime lies in it (a share holds
  // about 64 safe primes at any size: one with none has odds near e^-64); a line moved, or copied
  // from another run, does not.
  if (lineStream(line) === 2) {
    const distance = distanceFromStart(stream(line.bits, BigInt(line.seed), BigInt(line.index), 2), prime);
    if (distance === null || distance >= spacing(line.bits)) bad(`"prime" is not index ${line.index}'s of the ${line.bits}-bit run with seed ${line.seed} (a line moved, or from another file or run)`);
  }
}

/** A line's stream version: lines of version 1 carry none. */
export function lineStream(line: SearchLine): StreamVersion {
  return line.stream === 2 ? 2 : 1;
}

/**
 * Checks that every line's prime is a safe prime (fields first, with
 * checkLineFields); the first bad line in `all`'s order is thrown as a
 * RangeError naming it.
 */
export async function verifyLines(all: Located[], suffix = ''): Promise<void> {
  for (const l of all) {
    try {
      checkLineFields(l);
    } catch (err) {
      throw new RangeError(`${(err as Error).message}${suffix}`);
    }
  }
  const safe = await checkEach(all, (l) => isSafePrime(BigInt(l.line.prime)), 'verifying', true);
  const firstBad = safe.indexOf(false);
  if (firstBad >= 0) {
    const { line, where } = all[firstBad]!;
    throw new RangeError(`${where}: ${line.prime} is not a safe prime${suffix}`);
  }
}
