/**
 * Every byte powprime writes goes through here: a write is looped until the
 * system has taken all of it (writeSync may take fewer bytes than given, and
 * on a full disk does), synced, and any failure on the way (ENOSPC, EDQUOT,
 * EIO, EFBIG past a file size limit, EROFS, a write that takes nothing)
 * becomes one WriteFailedError naming the file. The callers decide what the
 * file looks like after a failure and say it in `outcome`.
 */
import { closeSync, fdatasyncSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { WriteFailedError } from '../errors.ts';

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on the device (ENOSPC)',
  EDQUOT: 'disk quota exceeded (EDQUOT)',
  EIO: 'input/output error (EIO)',
  EFBIG: 'file too large for the file system or the process limit (EFBIG)',
  EROFS: 'read-only file system (EROFS)',
  EBADF: 'the file is not open for writing (EBADF)',
  EINVAL: 'the file cannot be written or synced this way (EINVAL)',
};

/** Why a write failed, in words, for the message. */
export function reasonOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') return REASONS[code] ?? `${(err as Error).message.split(':')[0] ?? code} (${code})`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Writes all of `data` at the file's position (or at `position`), or throws
 * WriteFailedError. `outcome` says what the caller leaves behind on failure.
 */
export function writeAllSync(fd: number, data: Uint8Array | string, file: string, outcome: string, position?: number): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let done = 0;
  while (done < buf.length) {
    let n: number;
    try {
      n = writeSync(fd, buf, done, buf.length - done, position === undefined ? null : position + done);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN' || (err as NodeJS.ErrnoException).code === 'EINTR') continue;
      throw new WriteFailedError(file, reasonOf(err), outcome, { cause: err });
    }
    // A write that takes nothing will not take more on the next try.
    if (n <= 0) throw new WriteFailedError(file, `the system took ${done} of ${buf.length} bytes`, outcome);
    done += n;
  }
}

/** fsync (or fdatasync, `dataOnly`), with a failure as WriteFailedError: a failed sync means the bytes may not be on disk. */
export function syncSync(fd: number, file: string, outcome: string, dataOnly = false): void {
  try {
    if (dataOnly) fdatasyncSync(fd);
    else fsyncSync(fd);
  } catch (err) {
    throw new WriteFailedError(file, reasonOf(err), outcome, { cause: err });
  }
}

/**
 * How a system says it cannot sync a folder at all, rather than that the sync
 * failed: Windows opens no folder as a file (EISDIR, EPERM), some file systems
 * refuse fsync on one (EINVAL, ENOTSUP), and a folder this user may enter but
 * not list cannot be opened (EACCES). The entry is then as durable as the
 * system makes it.
 */
const NO_FOLDER_SYNC = new Set(['EISDIR', 'EPERM', 'EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EACCES']);

/**
 * fsync of the folder `dir`, so that a file just made or renamed in it
 * (`file`) survives a power loss: until then only its bytes are on disk, not
 * its name. A failed sync (EIO) is WriteFailedError, as a file's is.
 */
export function syncFolderSync(dir: string, file: string, outcome: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (err) {
    if (NO_FOLDER_SYNC.has((err as NodeJS.ErrnoException).code ?? '')) return;
    throw new WriteFailedError(file, reasonOf(err), outcome, { cause: err });
  }
  try {
    fsyncSync(fd);
  } catch (err) {
    if (NO_FOLDER_SYNC.has((err as NodeJS.ErrnoException).code ?? '')) return;
    throw new WriteFailedError(file, reasonOf(err), outcome, { cause: err });
  } finally {
    closeSync(fd);
  }
}
