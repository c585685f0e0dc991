/**
 * The CLI's JSON-lines files: `search --out`'s result lines (and merge's
 * inputs), `question run`'s answers, read back whole and checked line by
 * line. Appending to them is out-file.ts's.
 */
import { readLines, type ExistingLines } from './whole-lines.ts';

export interface SearchLine {
  prime: string;
  bits: number;
  seed: string;
  index: number;
  elapsedMs: number;
  /** The stream version (src/prime/stream.ts); absent in lines of version 1. */
  stream?: number;
}

function isSearchLine(x: unknown): x is SearchLine {
  const o = x as Record<string, unknown>;
  return typeof o === 'object' && o !== null && typeof o.prime === 'string' && typeof o.bits === 'number' && typeof o.seed === 'string' && typeof o.index === 'number';
}

export type ExistingRun = ExistingLines<SearchLine>;

/** The `search --out` file's lines (an input to merge, say: read without its lock). */
export function readExisting(file: string, flag = '--out'): ExistingRun {
  return readJsonl(file, isSearchLine, 'a search result', flag);
}

/** The complete lines of a JSONL file (none when it does not exist); `what` names a line in errors. */
export function readJsonl<T>(file: string, isLine: (x: unknown) => x is T, what: string, flag = '--out'): ExistingLines<T> {
  const refusing = flag === '--out' ? 'refusing to append to it' : 'refusing to use it';
  return readLines(file, flag, (text, lineNo) => {
    if (text.trim() === '') return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new RangeError(`${flag} file ${file} line ${lineNo} is not JSON; ${refusing}`);
    }
    if (!isLine(parsed)) throw new RangeError(`${flag} file ${file} line ${lineNo} is not ${what}; ${refusing}`);
    return parsed;
  });
}
