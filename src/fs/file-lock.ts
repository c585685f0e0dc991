/**
 * One process at a time on a file (`search --out`, a keystore, a state file).
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
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { native } from '../native.ts';
import { WriteFailedError } from '../errors.ts';
import { reasonOf } from './durable-write.ts';

export interface FileLock {
  /** The lock file. */
  readonly path: string;
  /** 'os': flock/LockFileEx held by an open file; 'link': the pid-file protocol. */
  readonly kind: 'os' | 'link';
  /** Lets go of the lock and removes the lock file; a second call does nothing. */
  release(): void;
}

/** Who holds (or last held) a lock, as its file says. */
export interface LockNote {
  pid: number;
  host: string;
  nonce: string;
  kind: 'os' | 'link';
  /** The file the lock guards. */
  what: string;
}

interface LockBinding {
  lockOpen(path: string, note: string): number | null;
  lockClose(handle: number, removePath?: string): boolean;
}

function binding(): LockBinding | null {
  const b = native() as unknown as Partial<LockBinding> | null;
  return b && typeof b.lockOpen === 'function' && typeof b.lockClose === 'function' ? (b as LockBinding) : null;
}

const HOST = hostname();

function makeNote(kind: LockNote['kind'], what: string): LockNote {
  return { pid: process.pid, host: HOST, nonce: randomBytes(12).toString('hex'), kind, what };
}

/** The note in a lock file, or null when there is none or it is not one of ours. */
export function readLockNote(file: string): LockNote | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const n = JSON.parse(text) as Partial<LockNote>;
    if (Number.isSafeInteger(n.pid) && typeof n.host === 'string' && typeof n.nonce === 'string' && /^[0-9a-f]{1,64}$/.test(n.nonce) && (n.kind === 'os' || n.kind === 'link')) {
      return { pid: n.pid!, host: n.host, nonce: n.nonce, kind: n.kind, what: typeof n.what === 'string' ? n.what : '' };
    }
  } catch {
    // Not JSON: not a note.
  }
  return null;
}

/** Whether pid names a running process here (a zombie, killed and not yet reaped, is not running). */
export function pidRunsHere(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // Linux: field 3 of /proc/<pid>/stat is the state; Z is a zombie. The
    // command name (field 2) is in parentheses and may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** Whether process `pid` on `host` still runs (on another host: assumed so, it cannot be checked). */
export function processAlive(pid: number, host: string): boolean {
  return host !== HOST || pidRunsHere(pid);
}

/** Whether the holder a note names still runs. */
export function noteHolderAlive(n: LockNote): boolean {
  return processAlive(n.pid, n.host);
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

/** Writes a whole file and syncs it; the link protocol publishes only complete notes. */
function writeNoteFile(file: string, note: LockNote): void {
  const fd = openSync(file, 'wx', 0o644);
  try {
    const buf = Buffer.from(JSON.stringify(note));
    let done = 0;
    while (done < buf.length) {
      const n = writeSync(fd, buf, done, buf.length - done);
      if (n <= 0) throw Object.assign(new Error(`ENOSPC: short write, ${file}`), { code: 'ENOSPC', path: file });
      done += n;
    }
    fsyncSync(fd);
  } catch (err) {
    try {
      unlinkSync(file);
    } catch {
      // Gone already.
    }
    throw err;
  } finally {
    closeSync(fd);
  }
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

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * What a process that owns its signals (the CLI) does around a synchronous
 * lock wait, during which Node runs no signal handler: null in the library,
 * whose callers keep their own handlers. `enter` at the first busy attempt,
 * `pending` between attempts (true ends the wait), `notice` once the wait
 * has lasted a second, `leave` at its end, which may throw (an interrupt).
 */
export interface SyncWaitGuard {
  enter(): void;
  pending(): boolean;
  notice(what: string, lockFile: string): void;
  leave(): void;
}
let syncWaitGuard: SyncWaitGuard | null = null;

export function guardSyncWaits(guard: SyncWaitGuard | null): void {
  syncWaitGuard = guard;
}

/**
 * Takes the lock, waiting for the holder (polling, at most `timeoutMs`): for
 * locks held a few milliseconds at a time, like the keystore's. Returns null
 * when the wait ran out.
 */
export function lockWaitSync(file: string, what: string, timeoutMs: number): FileLock | null {
  const start = Date.now();
  const first = tryLock(file, what);
  if (first || Date.now() - start >= timeoutMs) return first;
  // Busy: from here on the wait is the guard's (when there is one) until it ends.
  const guard = syncWaitGuard;
  if (!guard) return pollForLock(file, what, start, timeoutMs, null);
  guard.enter();
  let lock: FileLock | null;
  try {
    lock = pollForLock(file, what, start, timeoutMs, guard);
  } catch (err) {
    guard.leave(); // an interrupt it throws wins: the process is stopping
    throw err;
  }
  try {
    guard.leave();
  } catch (err) {
    lock?.release();
    throw err;
  }
  return lock;
}

/** Tries again and again after a failed first attempt, pausing longer each time (up to 50 ms), until the lock, the timeout or a pending signal. */
function pollForLock(file: string, what: string, start: number, timeoutMs: number, guard: SyncWaitGuard | null): FileLock | null {
  let noticed = false;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    if (guard?.pending()) return null; // the guard's leave() acts on the signal
    if (guard && !noticed && Date.now() - start >= 1000) {
      guard.notice(what, file);
      noticed = true;
    }
    // A synchronous sleep: the callers are synchronous state-file operations.
    Atomics.wait(sleeper, 0, 0, pause);
    const lock = tryLock(file, what);
    if (lock || Date.now() - start >= timeoutMs) return lock;
  }
}

/** The holder's pid, for a message ("held by pid 123"), when the lock file says. */
export function lockHolderText(file: string): string {
  const n = readLockNote(file);
  if (!n) return 'another process';
  return n.host === HOST ? `pid ${n.pid}` : `pid ${n.pid} on ${n.host}`;
}
