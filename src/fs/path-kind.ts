/**
 * What a path a caller gave names, so a constructor can refuse a folder
 * given for a file (or a file for a folder) by its argument's name, rather
 * than let the first read fail with the OS's EISDIR or ENOTDIR.
 */
import { statSync } from 'node:fs';

/** What is at `p`, following links: 'none' when nothing is; 'blocked' when a part of the path before the last is a file, so nothing can be made there. */
export function pathKind(p: string): 'file' | 'folder' | 'other' | 'none' | 'blocked' {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(p, { throwIfNoEntry: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return 'blocked';
    throw err;
  }
  if (st === undefined) return 'none';
  return st.isDirectory() ? 'folder' : st.isFile() ? 'file' : 'other';
}
