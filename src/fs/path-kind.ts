/**
 * What a path a caller gave names, so a constructor can refuse a folder
 * given for a file (or a file for a folder) by its argument's name, rather
 * than let the first read fail with the OS's EISDIR or ENOTDIR.
 */
import { statSync, type Stats } from 'node:fs';
import path from 'node:path';

/** stat, or undefined when nothing is there; 'blocked' when a part of the path is a file (Node 20 throws ENOTDIR); null when this user may not look. */
function look(p: string): Stats | undefined | 'blocked' | null {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return 'blocked';
    if (code === 'EACCES' || code === 'EPERM') return null;
    throw err;
  }
}

/**
 * What is at `p`, following links: 'none' when nothing is (or this user may
 * not look: the first real use says why); 'blocked' when a part of the path
 * before the last is a file, so nothing can be made there.
 */
export function pathKind(p: string): 'file' | 'folder' | 'other' | 'none' | 'blocked' {
  const st = look(p);
  if (st === 'blocked') return 'blocked';
  if (st === null) return 'none';
  if (st === undefined) return underFile(p) ? 'blocked' : 'none';
  return st.isDirectory() ? 'folder' : st.isFile() ? 'file' : 'other';
}

/** Whether the nearest thing above `p` that exists is no folder: from Node 22 a path through a file is merely absent to stat. */
function underFile(p: string): boolean {
  for (let at = path.dirname(path.resolve(p)); ; at = path.dirname(at)) {
    const st = look(at);
    if (st === null) return false;
    if (st === 'blocked' || (st !== undefined && !st.isDirectory())) return true;
    if (st !== undefined || at === path.dirname(at)) return false;
  }
}
