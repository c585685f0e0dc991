/**
 * Whole-file writes that a crash cannot leave half done: write a temporary
 * file beside the target, fsync it, rename it over the target, fsync the
 * folder. The CLI's output files and the clients' state files are written so.
 */
import { closeSync, openSync, readdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { WriteFailedError } from '../errors.ts';
import { reasonOf, syncFolderSync, syncSync, writeAllSync } from './durable-write.ts';
import { pidRunsHere } from './lock-note.ts';
import { makeFolderSync } from './make-folder.ts';

/** Errors of open/rename that mean the disk refused, not that the path is wrong. */
const DISK_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EFBIG', 'EROFS']);

/**
 * The names of writeFileAtomic's temporary files, `.<name>.<pid>.<ms>.tmp`,
 * for the sweeps that remove those a killed process left.
 */
export const TEMPORARY_NAME = /^\..+\.\d+\.\d+\.tmp$/;

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
