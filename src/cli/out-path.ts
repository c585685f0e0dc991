/**
 * What an --out path may be. Appending (`search`, `question run`) and
 * replacing whole (`dhparam`, `merge`: written beside, then renamed over)
 * both need a regular file or nothing there: a FIFO would block forever,
 * /dev/zero never end, and a rename would put a file where a device, a
 * link or someone else's read-only file was. An input read whole
 * (`dhparam --in`) needs a regular file that is there, for the same reasons.
 */
import { accessSync, constants, lstatSync, readlinkSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';

/**
 * What is at `p` (lstat with `link`), or undefined when nothing is: a part
 * of the path that is a file (ENOTDIR) is nothing there too, and
 * checkOutFolder names that part.
 */
function statOf(p: string, link = false): Stats | undefined {
  try {
    return link ? lstatSync(p, { throwIfNoEntry: false }) : statSync(p, { throwIfNoEntry: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** Refuses a path that is not a regular file, following links; whether one is there. */
function regularFileAt(file: string, flag: string): boolean {
  if (file === '') throw new RangeError(`${flag} must name a file (got "")`);
  // Elsewhere "-" means stdin or stdout: taken as a file's name it would surprise.
  if (file === '-') throw new RangeError(`${flag} - is not stdin or stdout here; give a file name (./- for a file named "-")`);
  const st = statOf(file);
  if (st === undefined) return false;
  if (st.isDirectory()) throw new RangeError(`${flag} ${file} is a directory; give a file name`);
  if (!st.isFile()) throw new RangeError(`${flag} ${file} is not a regular file (a device, FIFO or socket); give a file name`);
  return true;
}

/** A file to write: a regular file or nothing there yet. */
export function checkRegularFile(file: string, flag: string): void {
  regularFileAt(file, flag);
}

/**
 * A file read whole before any size check: a regular file that is there, as a
 * FIFO or a device could be read without end. Streamed inputs, read with a
 * cap, take read-input.ts's checkInputFile, which lets a pipe through.
 */
export function checkRegularInput(file: string, flag: string): void {
  if (!regularFileAt(file, flag)) throw new RangeError(`${flag} ${file}: no such file`);
}

/**
 * The file a write to `file` lands in: a link's target, followed link by
 * link as the OS does (a link to a file not made yet included: writing
 * creates it), or `file` itself.
 */
export function linkTarget(file: string, flag = '--out'): string {
  let at = file;
  for (let hops = 0; statOf(at, true)?.isSymbolicLink(); hops++) {
    if (hops === 40) throw new RangeError(`${flag} ${file} is a loop of links; give a file name`);
    at = path.resolve(path.dirname(at), readlinkSync(at));
  }
  return at;
}

/**
 * The folder a file at `target` goes in. A path ending in a separator (or
 * in `.` or `..`) names a folder, so `new/` goes in `new`, not beside it.
 */
function folderOf(target: string): string {
  const trailing = path.sep === '\\' ? /[\\/]+(?:\.{1,2}[\\/]*)?$/ : /\/+(?:\.{1,2}\/*)?$/;
  const m = trailing.exec(target);
  return m !== null && m.index > 0 ? path.resolve(target.slice(0, m.index)) : path.dirname(path.resolve(target));
}

/**
 * Refuses (RangeError) an output path whose folder is missing or is not a
 * folder, in the one wording every command uses (`--out new/x.pem: its
 * folder /home/me/new does not exist`), before any work or request. `file`
 * is the path as given, `target` where a write lands (linkTarget).
 */
export function checkOutFolder(file: string, flag = '--out', target = linkTarget(file, flag)): string {
  const folder = folderOf(target);
  const st = statOf(folder);
  if (st?.isDirectory()) return folder;
  if (st !== undefined) throw new RangeError(`${flag} ${file}: its folder ${folder} is not a directory`);
  // The nearest part of the path that is there says why the rest is not: a file where a folder belongs.
  let above = path.dirname(folder);
  while (statOf(above) === undefined && path.dirname(above) !== above) above = path.dirname(above);
  const blocker = statOf(above);
  throw new RangeError(`${flag} ${file}: its folder ${folder} does not exist${blocker && !blocker.isDirectory() ? ` (${above} is not a directory)` : ''}`);
}

/**
 * The path to replace for `--out file`, judged before any work: a link is
 * followed (its target is written, as a write through it would be, not the
 * link replaced), and the folder, and an existing file, must be ones this
 * user may write.
 */
export function replaceablePath(file: string, flag = '--out'): string {
  const target = linkTarget(file, flag);
  checkRegularFile(file, flag);
  const folder = checkOutFolder(file, flag, target);
  const writable = (p: string): boolean => {
    try {
      accessSync(p, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  // The new file is written beside the old, then renamed over it.
  if (!writable(folder)) throw new RangeError(`${flag} ${file}: its folder ${folder} is read-only for this user; give another place`);
  if (statOf(target) && !writable(target)) throw new RangeError(`${flag} ${file} is read-only for this user; give another file`);
  return target;
}
