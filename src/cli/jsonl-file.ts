/**
 * The CLI's --out files (`search`, `question run`): JSON lines appended whole
 * (one write each, then fdatasync), so a crash loses at most the line being
 * written; a torn last line left by a crash is cut off before appending again.
 */
import { closeSync, existsSync, statSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';

export interface SearchLine {
  prime: string;
  bits: number;
  seed: string;
  index: number;
  elapsedMs: number;
}

export interface ExistingLines<T> {
  lines: T[];
  /** Bytes of complete lines; anything after is a torn write. */
  validBytes: number;
  totalBytes: number;
}

function isSearchLine(x: unknown): x is SearchLine {
  const o = x as Record<string, unknown>;
  return (
    typeof o === 'object' && o !== null && typeof o.prime === 'string' && typeof o.bits === 'number' &&
    typeof o.seed === 'string' && typeof o.index === 'number'
  );
}

export type ExistingRun = ExistingLines<SearchLine>;

/** The `search --out` file's lines. */
export function readExisting(file: string): ExistingRun {
  return readJsonl(file, isSearchLine, 'a search result');
}

/** The complete lines of a JSONL file (none when it does not exist); `what` names a line in errors. */
export function readJsonl<T>(file: string, isLine: (x: unknown) => x is T, what: string): ExistingLines<T> {
  if (existsSync(file) && statSync(file).isDirectory()) throw new RangeError(`--out ${file} is a directory; give a file name`);
  if (!existsSync(file)) return { lines: [], validBytes: 0, totalBytes: 0 };
  const buf = readFileSync(file);
  const end = buf.lastIndexOf(0x0a) + 1;
  const lines: T[] = [];
  let lineNo = 0;
  for (const text of buf.subarray(0, end).toString('utf8').split('\n')) {
    lineNo++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new RangeError(`--out file ${file} line ${lineNo} is not JSON; refusing to append to it`);
    }
    if (!isLine(parsed)) throw new RangeError(`--out file ${file} line ${lineNo} is not ${what}; refusing to append to it`);
    lines.push(parsed);
  }
  return { lines, validBytes: end, totalBytes: buf.length };
}

export class JsonlAppender<T = SearchLine> {
  private readonly fd: number;

  constructor(file: string, existing: ExistingLines<T>) {
    this.fd = openSync(file, 'a');
    if (existing.totalBytes > existing.validBytes) ftruncateSync(this.fd, existing.validBytes);
  }

  append(line: T): void {
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    fdatasyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}
