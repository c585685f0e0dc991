/**
 * mkdir -p, by hand: Node's recursive mkdirSync never returns when the system
 * answers a folder's creation with ENOENT while its parent exists (under
 * /proc, for a state dir given as /proc/x: it retries for ever at full CPU,
 * deaf to signals). Here each missing folder is made once, from the top, and
 * the first refusal is thrown as it came.
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

export function makeFolderSync(dir: string, mode = 0o777): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir); ; ) {
    const stat = statSync(at, { throwIfNoEntry: false });
    if (stat) {
      if (!stat.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', syscall: 'mkdir', path: at });
      break;
    }
    missing.push(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder, { mode });
    } catch (err) {
      // Made meanwhile by another process: as good.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
