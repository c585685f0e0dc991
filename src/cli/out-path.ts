/**
 * What an --out path may be. Appending (`search`, `question run`) and
 * replacing whole (`dhparam`, `merge`: written beside, then renamed over)
 * both need a regular file or nothing there: a FIFO would block forever,
 * /dev/zero never end, and a rename would put a file where a device, a
 * link or someone else's read-only file was.
 */
import { accessSync, constants, lstatSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';

/** Refuses a path that is not a regular file (or absent), following links. */
export function checkRegularFile(file: string, flag: string): void {
  if (file === '') throw new RangeError(`${flag} must name a file (got "")`);
  const st = statSync(file, { throwIfNoEntry: false });
  if (st === undefined) return;
  if (st.isDirectory()) throw new RangeError(`${flag} ${file} is a directory; give a file name`);
  if (!st.isFile()) throw new RangeError(`${flag} ${file} is not a regular file (a device, FIFO or socket); give a file name`);
}

/**
 * The file a write to `file` lands in: a link's target, followed link by
 * link as the OS does (a link to a file not made yet included: writing
 * creates it), or `file` itself.
 */
export function linkTarget(file: string, flag = '--out'): string {
  let at = file;
  for (let hops = 0; lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink(); hops++) {
    if (hops === 40) throw new RangeError(`${flag} ${file} is a loop of links; give a file name`);
    at = path.resolve(path.dirname(at), readlinkSync(at));
  }
  return at;
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
  const folder = path.dirname(path.resolve(target));
  const dir = statSync(folder, { throwIfNoEntry: false });
  if (dir === undefined) throw new RangeError(`${flag} ${file}: its folder ${folder} does not exist`);
  if (!dir.isDirectory()) throw new RangeError(`${flag} ${file}: its folder ${folder} is not a directory`);
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
  if (statSync(target, { throwIfNoEntry: false }) && !writable(target)) throw new RangeError(`${flag} ${file} is read-only for this user; give another file`);
  return target;
}
