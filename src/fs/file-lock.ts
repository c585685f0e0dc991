/**
 * One process at a time on a file (`search --out`, a keystore, a state file);
 * the lock file's note is lock-note.ts's, a wait for a lock is lock-wait.ts's.
 *
 * With the native addon the lock is an OS lock held by an open file (flock(2);
 * LockFileEx on Windows): the kernel drops it when the holder's process ends,
 * however it ends, so there is never a stale lock to take over.
 *
 * Without the addon (the TS backend) a lock file is made whole and then
 * published with link(2), which fails if the name exists. The file holds the
 * holder's pid, host and a random nonce. A lock whose holder is gone (killed
 * with -9) is taken over through a successor lock named for that lock's
 * nonce, itself taken with the same protocol: of any number of processes that
 * saw the same dead holder, only the one that publishes the successor may
 * replace the lock (by rename), and only after checking the lock still bears
 * that nonce; the rest see the successor's live holder and back off. What
 * remains: a holder's pid reused by a live process makes its lock look held
 * (refused, never doubled; the message names the pid and the file to remove),
 * and a holder on another host, or in another pid namespace sharing the
 * folder, cannot be judged (a lock from another host is never taken over).
 *
 * Both kinds write the same note, and each refuses a lock the other kind
 * holds while its holder lives; two processes on one file should still run
 * the same build (addon loaded in both, or in neither), because the takeover
 * of a dead holder's file is only race-free within one kind.
 */
import { linkSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { native } from '../native.ts';
import { WriteFailedError } from '../errors.ts';
import { reasonOf } from './durable-write.ts';
import { makeNote, noteHolderAlive, readLockNote, writeNoteFile } from './lock-note.ts';

export interface FileLock {
  /** The lock file. */
  readonly path: string;
  /** 'os': flock/LockFileEx held by an open file; 'link': the pid-file protocol. */
  readonly kind: 'os' | 'link';
  /** Lets go of the lock and removes the lock file; a second call does nothing. */
  release(): void;
}

interface LockBinding {
  lockOpen(path: string, note: string): number | null;
  lockClose(handle: number, removePath?: string): boolean;
}

function binding(): LockBinding | null {
  const b = native() as unknown as Partial<LockBinding> | null;
  return b && typeof b.lockOpen === 'function' && typeof b.lockClose === 'function' ? (b as LockBinding) : null;
}

/** A full or failing disk refuses even a lock file: said as a write failure, the guarded file untouched. */
const DISK_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO']);

/** An error opening the lock file is reported against the file the user named. */
function asGuardedPathError(err: unknown, what: string): unknown {
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string' && DISK_CODES.has(e.code)) return new WriteFailedError(what, reasonOf(e), `${what} is unchanged (its lock file could not be made)`, { cause: err });
  if (e && typeof e.code === 'string' && typeof e.path === 'string') {
    e.path = what;
    e.syscall ??= 'open';
  }
  return err;
}

function tryOsLock(b: LockBinding, file: string, what: string): FileLock | null {
  // A live holder by the pid-file protocol (a process without the addon) holds it too.
  const there = readLockNote(file);
  if (there && there.kind === 'link' && noteHolderAlive(there)) return null;
  let handle: number | null;
  try {
    // The note goes through the locking handle itself: where flock is emulated
    // with fcntl locks (NFS), closing any other handle on the file would drop the lock.
    handle = b.lockOpen(file, JSON.stringify(makeNote('os', what)));
  } catch (err) {
    throw asGuardedPathError(err, what);
  }
  return handle === null ? null : heldOsLock(b, handle, file, file);
}

/** The FileLock of an open lock handle on `file`; its release removes `removePath` (the lock file), if given, and closes the handle. */
function heldOsLock(b: LockBinding, handle: number, file: string, removePath?: string): FileLock {
  let open = true;
  return {
    path: file,
    kind: 'os',
    release() {
      if (!open) return;
      open = false;
      b.lockClose(handle, removePath);
    },
  };
}

function removeIfMine(file: string, nonce: string): void {
  if (readLockNote(file)?.nonce !== nonce) return;
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}

/** Successor locks nested deeper than this mean takeovers crashing again and again: refused. */
const MAX_TAKEOVER_DEPTH = 4;

function tryLinkLock(file: string, what: string, depth: number): FileLock | null {
  const note = makeNote('link', what);
  const tmp = `${file}.${note.nonce}.tmp`;
  try {
    writeNoteFile(tmp, note);
  } catch (err) {
    throw asGuardedPathError(err, what);
  }
  const mine = (): FileLock => {
    let open = true;
    return {
      path: file,
      kind: 'link',
      release() {
        if (!open) return;
        open = false;
        removeIfMine(file, note.nonce);
      },
    };
  };
  try {
    for (;;) {
      try {
        linkSync(tmp, file);
        return mine();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw asGuardedPathError(err, what);
      }
      const held = readLockNote(file);
      if (held === null) {
        // Released between our link and our read: try again. A file that is
        // there but not a note is someone else's: refused, never replaced.
        try {
          readFileSync(file);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        }
        return null;
      }
      if (noteHolderAlive(held) || depth >= MAX_TAKEOVER_DEPTH) return null;
      // The holder is gone. Only the publisher of this lock's successor may replace it.
      const successor = tryLinkLock(`${file}.${held.nonce}.takeover`, what, depth + 1);
      if (!successor) return null;
      try {
        if (readLockNote(file)?.nonce !== held.nonce) continue; // replaced meanwhile: look again
        renameSync(tmp, file);
        return mine();
      } finally {
        successor.release();
      }
    }
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // Renamed into place, or never made.
    }
  }
}

/**
 * Takes the lock `file` for this process without waiting, or returns null when
 * another holder (another process, or another lock of this one) has it.
 * `what` is the file the lock guards: errors name it, not the lock file.
 */
export function tryLock(file: string, what: string): FileLock | null {
  if (typeof file !== 'string' || file === '') throw new TypeError('file must be a non-empty path');
  const b = binding();
  return b ? tryOsLock(b, file, what) : tryLinkLock(file, what, 0);
}

/**
 * An OS lock on `file` itself, for a file several hard links name: their
 * `<name>.lock` files differ, the file they reach does not. Advisory flock,
 * so this process's own writes through other handles go on; the file's
 * contents are untouched. Null when another run holds it; undefined where it
 * cannot be taken (no addon; Windows, where a lock on the file would be
 * mandatory and stop this run's own writes) or is not needed (a file this
 * user cannot write). `file` must exist.
 */
export function tryLockFileItself(file: string): FileLock | null | undefined {
  const b = binding();
  if (!b || process.platform === 'win32') return undefined;
  let handle: number | null;
  try {
    handle = b.lockOpen(file, '');
  } catch (err) {
    // A file this user may only read (or on a read-only mount) can be locked by nobody's writer: none needed.
    if (['EACCES', 'EPERM', 'EROFS'].includes(String((err as NodeJS.ErrnoException).code))) return undefined;
    throw asGuardedPathError(err, file);
  }
  // No removePath: the file is the user's, not a lock file.
  return handle === null ? null : heldOsLock(b, handle, file);
}
