/**
 * The clients' state files: whole-file writes that a crash cannot leave half
 * done (write a temporary file beside the target, fsync it, rename it over
 * the target, fsync the folder), and reads with an explicit policy for a
 * corrupt file.
 */
import { closeSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { StateFileCorruptError } from '../errors.ts';
import { WriteFailedError } from '../../errors.ts';
import { reasonOf, syncFolderSync, syncSync, writeAllSync } from '../../fs/durable-write.ts';
import { pidRunsHere } from '../../fs/file-lock.ts';
import { makeFolderSync } from '../../fs/make-folder.ts';

/** Errors of open/rename that mean the disk refused, not that the path is wrong. */
const DISK_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EFBIG', 'EROFS']);

/** Folders and names already swept by this process: once each is enough, as only a kill -9 leaves one. */
const swept = new Set<string>();
/** A temporary file lives for the milliseconds of one write; one this old was left by a process that died. */
const STALE_AFTER_MS = 60_000;

/**
 * Removes the temporary files of `base` (`.<base>.<pid>.<ms>.tmp`) that a
 * kill -9 in the middle of writeFileAtomic left: those whose process is gone
 * and that are older than a minute. Both, because a pid says nothing on a
 * folder another machine shares, and age alone could take a slow disk's
 * write in progress. Best effort: a file that cannot be read or removed stays.
 */
function sweepStaleTemporaries(dir: string, base: string): void {
  const key = path.join(dir, base);
  if (swept.has(key)) return;
  swept.add(key);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // not made yet: nothing in it
  }
  const prefix = `.${base}.`;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)\.(\d+)\.tmp$/.exec(name.slice(prefix.length));
    if (!m || Number(m[1]) === process.pid || pidRunsHere(Number(m[1]))) continue;
    const at = path.join(dir, name);
    try {
      if (Date.now() - statSync(at).mtimeMs > STALE_AFTER_MS) unlinkSync(at);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

/**
 * Replaces `file` with `data`, whole or not at all: on any failure the
 * temporary file is removed, `file` is as it was, and a disk's refusal is
 * WriteFailedError naming `file`.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o600): void {
  const dir = path.dirname(file);
  sweepStaleTemporaries(dir, path.basename(file));
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const outcome = `${file} is unchanged`;
  const refused = (err: unknown): unknown => {
    const e = err as NodeJS.ErrnoException;
    if (DISK_CODES.has(e.code ?? '')) return new WriteFailedError(file, reasonOf(err), outcome, { cause: err });
    // The temporary name means nothing to the caller: name the file it stands for.
    if (e.path === tmp) e.path = file;
    return err;
  };
  let fd: number;
  try {
    makeFolderSync(dir, 0o700);
    fd = openSync(tmp, 'w', mode);
  } catch (err) {
    throw refused(err);
  }
  try {
    try {
      writeAllSync(fd, data, file, outcome);
      syncSync(fd, file, outcome);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // Never made, or already renamed.
    }
    throw refused(err);
  }
  // Until the folder is synced, a power loss may bring back the old file: callers act on the new one being there.
  syncFolderSync(dir, file, `${file} is replaced, but a power loss may bring back its earlier contents`);
}

/**
 * What to do with a state file that exists but is not valid JSON (a disk
 * fault, a hand edit): the one policy for every state file, chosen per file.
 * - 'set-aside': rename it to `<name>.corrupt-<ms>` (kept for inspection),
 *   warn once, and start from empty state. For state whose loss costs only
 *   time or a little budget: limiter records, cookies, caches, queues.
 * - 'refuse': throw StateFileCorruptError and touch nothing. For state that
 *   cannot be rebuilt: the registry keystore, which holds private keys.
 */
export type CorruptPolicy = 'set-aside' | 'refuse';

/**
 * Says what is wrong with a parsed state file's shape ("entry 3 has no prime"),
 * or undefined when it is usable. A wrong shape is handled like invalid JSON.
 */
export type ShapeCheck = (parsed: unknown) => string | undefined;

/** The parsed JSON of `file`, or undefined when it does not exist (or was set aside). */
export function readJsonState(file: string, policy: CorruptPolicy, shape?: ShapeCheck): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let parsed: unknown;
  let problem: string | undefined;
  let cause: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
    problem = shape?.(parsed);
  } catch (err) {
    problem = 'is not valid JSON';
    cause = err;
  }
  if (problem === undefined) return parsed;
  if (policy === 'refuse') throw new StateFileCorruptError(file, cause, problem);
  const aside = `${file}.corrupt-${Date.now()}`;
  try {
    renameSync(file, aside);
  } catch (err) {
    // Another process read the same bad file and set it aside first.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  process.emitWarning(`${file} ${problem}; moved to ${aside}, starting afresh`, { code: 'POWPRIME_STATE_CORRUPT' });
  return undefined;
}
