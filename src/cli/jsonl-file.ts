/**
 * The `search --out` file: JSON lines appended whole (one write each, then
 * fdatasync), so a crash loses at most the line being written; a torn last
 * line left by a crash is cut off before appending again.
 */
import { closeSync, existsSync, statSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';

export interface SearchLine {
  prime: string;
  bits: number;
  seed: string;
  index: number;
  elapsedMs: number;
}

export interface ExistingRun {
  lines: SearchLine[];
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

export function readExisting(file: string): ExistingRun {
  if (existsSync(file) && statSync(file).isDirectory()) throw new RangeError(`--out ${file} is a directory; give a file name`);
  if (!existsSync(file)) return { lines: [], validBytes: 0, totalBytes: 0 };
  const buf = readFileSync(file);
  const end = buf.lastIndexOf(0x0a) + 1;
  const lines: SearchLine[] = [];
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
    if (!isSearchLine(parsed)) throw new RangeError(`--out file ${file} line ${lineNo} is not a search result; refusing to append to it`);
    lines.push(parsed);
  }
  return { lines, validBytes: end, totalBytes: buf.length };
}

export class JsonlAppender {
  private readonly fd: number;

  constructor(file: string, existing: ExistingRun) {
    this.fd = openSync(file, 'a');
    if (existing.totalBytes > existing.validBytes) ftruncateSync(this.fd, existing.validBytes);
  }

  append(line: SearchLine): void {
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    fdatasyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}
