/**
 * The complete lines of a text file another run may have been cut off
 * writing: bytes after the last newline are a torn write, left out and
 * counted, so a resume can cut them and a merge can warn of them.
 */
import { readFileSync } from 'node:fs';
import { checkRegularFile } from './out-path.ts';

export interface ExistingLines<T> {
  lines: T[];
  /** The file's line number of each of `lines` (1-based; blank lines are skipped). */
  lineNos: number[];
  /** Bytes of complete lines; anything after is a torn write. */
  validBytes: number;
  totalBytes: number;
}

/** The warning a merge gives an input that ends in a torn line, or null when it ends whole. */
export function tornInputWarning(file: string, existing: ExistingLines<unknown>): string | null {
  return existing.totalBytes > existing.validBytes ? `${file} ends in a torn line (a crashed run); it is left out` : null;
}

/**
 * How many whole lines `file` holds now, blank ones aside as readJsonl
 * skips them, or null when it cannot be read: a run's summary says what is
 * on disk, which another process (a stray `> file`, ignoring the lock) may
 * have changed since the lines were written. A file removed since holds 0.
 */
export function wholeLinesIn(file: string): number | null {
  try {
    return readLines(file, '--out', (text) => (text.trim() === '' ? null : true)).lines.length;
  } catch {
    return null;
  }
}

/**
 * The complete lines of a text file (none when it does not exist), each
 * given to `parse` with its 1-based number: null skips it, a throw refuses
 * the file. Bytes after the last newline are a torn write, left out.
 */
export function readLines<T>(file: string, flag: string, parse: (text: string, lineNo: number) => T | null): ExistingLines<T> {
  checkRegularFile(file, flag);
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], lineNos: [], validBytes: 0, totalBytes: 0 };
    throw err;
  }
  const end = buf.lastIndexOf(0x0a) + 1;
  const lines: T[] = [];
  const lineNos: number[] = [];
  let lineNo = 0;
  for (const text of buf.subarray(0, end).toString('utf8').split('\n')) {
    lineNo++;
    const line = parse(text, lineNo);
    if (line === null) continue;
    lines.push(line);
    lineNos.push(lineNo);
  }
  return { lines, lineNos, validBytes: end, totalBytes: buf.length };
}
