/**
 * Waiting for a lock held a few milliseconds at a time (the keystore's, a
 * state file's): a synchronous poll, as its callers are synchronous, with a
 * guard through which the CLI's signal handling reaches into the wait.
 */
import { FileLockedError } from '../errors.ts';
import { type FileLock, tryLock } from './file-lock.ts';
import { lockHolderText } from './lock-note.ts';

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
 * locks held a few milliseconds at a time, like the keystore's. Throws
 * FileLockedError, naming `what` and the holder, when the wait runs out.
 */
export function lockWaitSync(file: string, what: string, timeoutMs: number): FileLock {
  const lock = waitSync(file, what, timeoutMs);
  if (!lock) throw new FileLockedError(what, lockHolderText(file));
  return lock;
}

function waitSync(file: string, what: string, timeoutMs: number): FileLock | null {
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
