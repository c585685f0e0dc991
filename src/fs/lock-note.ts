/**
 * The note a lock file holds (pid, host, a random nonce, which kind of lock,
 * the file it guards), and whether the holder it names still runs: what
 * file-lock.ts decides a takeover by and every "locked by pid 123" message
 * quotes.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';

/** Who holds (or last held) a lock, as its file says. */
export interface LockNote {
  pid: number;
  host: string;
  nonce: string;
  kind: 'os' | 'link';
  /** The file the lock guards. */
  what: string;
}

const HOST = hostname();

export function makeNote(kind: LockNote['kind'], what: string): LockNote {
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

/** Writes a whole file and syncs it; the link protocol publishes only complete notes. */
export function writeNoteFile(file: string, note: LockNote): void {
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

/** The holder's pid, for a message ("held by pid 123"), when the lock file says. */
export function lockHolderText(file: string): string {
  const n = readLockNote(file);
  if (!n) return 'another process';
  return n.host === HOST ? `pid ${n.pid}` : `pid ${n.pid} on ${n.host}`;
}
