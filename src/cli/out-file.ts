/**
 * The CLI's --out files (`search`, `question run`, `moduli`): lines (JSON, or moduli(5) text) appended whole
 * (one write each, then fdatasync), so a crash loses at most the line being
 * written; a torn last line left by a crash is cut off before appending again.
 * One process at a time: the file's lock (`<file>.lock`, an OS lock where the
 * addon loads) is taken before the file is first read, and held until the
 * run ends; the file itself is locked too once read (see lockItself). A failed write cuts the file back to its last whole line.
 */
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, openSync } from 'node:fs';
import path from 'node:path';
import { tryLock, tryLockFileItself, type FileLock } from '../fs/file-lock.ts';
import { lockHolderText } from '../fs/lock-note.ts';
import { reasonOf, syncFolderSync, syncSync, writeAllSync } from '../fs/durable-write.ts';
import { WriteFailedError } from '../errors.ts';
import { checkOutFolder, checkRegularFile, linkTarget } from './out-path.ts';
import type { ExistingLines } from './whole-lines.ts';

/**
 * Takes `<file>.lock` for this run, or refuses (RangeError) when another run
 * holds it. `file` must be a regular file or absent. Taken before the file
 * is read, so nothing this run does rests on lines another run is writing.
 */
export function lockOutFile(file: string, flag = '--out'): FileLock {
  // Beside the file written, so runs naming it through different links exclude each other.
  const target = linkTarget(file, flag);
  const lockFile = `${target}.lock`;
  checkRegularFile(file, flag);
  // A missing folder is named as every command names it, not as the lock file's failure.
  checkOutFolder(file, flag, target);
  const lock = tryLock(lockFile, file);
  if (!lock) throw new RangeError(`${flag} ${file} is being written by another run (${lockHolderText(lockFile)}); wait for it to end or stop it, or use another file`);
  // Ended by process.exit (a second Ctrl-C) without release(): the lock file goes too.
  const onExit = (): void => lock.release();
  process.once('exit', onExit);
  return {
    path: lock.path,
    kind: lock.kind,
    release() {
      process.off('exit', onExit);
      lock.release();
    },
  };
}

/**
 * An --out file held by this run: locked, read, then appended to. Closing it
 * (idempotent) releases the lock.
 */
export class OutFile<T> {
  readonly existing: ExistingLines<T>;
  private fd: number | null = null;
  /** Bytes of whole lines on disk: a failed append is cut back to this. */
  private goodLength: number;
  private closed = false;
  private folderSynced = false;
  /** The lock on the file itself (lockItself), once the file exists. */
  private itself: FileLock | undefined;

  private constructor(
    readonly file: string,
    private readonly lock: FileLock,
    read: (file: string) => ExistingLines<T>,
    private readonly flag: string,
    private readonly encode: (line: T) => string,
  ) {
    try {
      this.existing = read(file);
      if (existsSync(file)) this.lockItself();
    } catch (err) {
      lock.release();
      throw err;
    }
    this.goodLength = this.existing.validBytes;
  }

  /**
   * Locks the file itself as well as `<name>.lock`: hard links give one file
   * several names, each with its own `.lock`. After the file was read, since
   * where flock is emulated with fcntl locks (NFS) closing any handle on the
   * file, as readFileSync does, would drop it; held until close(). Refuses
   * (RangeError) when another run holds it.
   */
  private lockItself(): void {
    const held = tryLockFileItself(this.file);
    if (held === null) throw new RangeError(`${this.flag} ${this.file} is being written by another run through another hard link to the same file; wait for it to end or stop it, or use another file`);
    this.itself = held;
  }

  /** Locks `file` (see lockOutFile), then reads its lines with `read`; `encode` makes a line's text (JSON by default). */
  static open<T>(file: string, read: (file: string) => ExistingLines<T>, flag = '--out', encode: (line: T) => string = (l) => JSON.stringify(l)): OutFile<T> {
    return new OutFile<T>(file, lockOutFile(file, flag), read, flag, encode);
  }

  /**
   * Cuts off a torn last line now, before any append: a resumed run with
   * nothing left to do appends nothing, and the file must still end whole.
   */
  cutTornTail(): void {
    if (this.existing.totalBytes > this.existing.validBytes) this.openForAppend();
  }

  private get outcome(): string {
    return `${this.file} holds only whole lines (cut back to the last one written whole)`;
  }

  /** The file opened for appending (made, and locked itself, if new), a torn tail cut off. */
  private openForAppend(): number {
    if (this.fd !== null) return this.fd;
    try {
      this.fd = openSync(this.file, 'a');
      if (!this.itself) this.lockItself(); // a file this run has just made
      if (this.existing.totalBytes > this.existing.validBytes) {
        ftruncateSync(this.fd, this.existing.validBytes);
        fdatasyncSync(this.fd);
      }
      return this.fd;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EIO') throw new WriteFailedError(this.file, reasonOf(err), this.outcome, { cause: err });
      throw err;
    }
  }

  append(line: T): void {
    if (this.closed) throw new Error(`${this.file} is closed`);
    const bytes = Buffer.from(`${this.encode(line)}\n`, 'utf8');
    const { outcome } = this;
    const fd = this.openForAppend();
    try {
      writeAllSync(fd, bytes, this.file, outcome);
      syncSync(fd, this.file, outcome, true);
      // Once a run: a file this run made is not on disk, whatever its bytes, until its folder is synced.
      if (!this.folderSynced) {
        syncFolderSync(path.dirname(linkTarget(this.file)), this.file, outcome);
        this.folderSynced = true;
      }
    } catch (err) {
      // No torn line may stay: the next run would refuse the file, or worse, read half a prime.
      try {
        ftruncateSync(fd, this.goodLength);
        fdatasyncSync(fd);
      } catch {
        // The disk refuses even that; the next run cuts a torn tail off itself.
      }
      throw err instanceof WriteFailedError ? err : new WriteFailedError(this.file, String(err), outcome, { cause: err });
    }
    this.goodLength += bytes.length;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd !== null) closeSync(this.fd);
    this.itself?.release();
    this.lock.release();
  }
}
