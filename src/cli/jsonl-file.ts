/**
 * The CLI's --out files (`search`, `question run`): JSON lines appended whole
 * (one write each, then fdatasync), so a crash loses at most the line being
 * written; a torn last line left by a crash is cut off before appending again.
 * One process at a time appends to a file: a second run of the same command
 * would write the same lines again.
 */
import { closeSync, existsSync, statSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

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

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims `file` for this process with `<file>.lock` holding its pid, created
 * exclusively. A lock whose process is gone (killed with -9) is taken over; a
 * live one is refused. Returns the release.
 */
function claim(file: string): () => void {
  const lock = `${file}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lock, 'utf8'));
      if (alive(pid) || attempt > 0) {
        throw new RangeError(`--out ${file} is being written by another run (pid ${pid}); wait for it to end or stop it, or use another file`);
      }
      unlinkSync(lock);
    }
  }
  return () => {
    try {
      unlinkSync(lock);
    } catch {
      // Already gone.
    }
  };
}

export class JsonlAppender<T = SearchLine> {
  private readonly fd: number;
  private readonly release: () => void;

  constructor(file: string, existing: ExistingLines<T>) {
    this.release = claim(file);
    // Ended by process.exit (a second Ctrl-C) without close(): the lock goes too.
    process.once('exit', this.release);
    this.fd = openSync(file, 'a');
    if (existing.totalBytes > existing.validBytes) ftruncateSync(this.fd, existing.validBytes);
  }

  append(line: T): void {
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    fdatasyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
    process.off('exit', this.release);
    this.release();
  }
}
