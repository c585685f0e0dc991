/**
 * A client's folder of downloads (question files, ad images) kept to its
 * max age. A download past its age is only replaced when it is asked for
 * again; one never asked for again would stay for good, and so would the
 * temporary of a whole-file write that a crash cut short. So each save
 * sweeps the folder, at most once an hour per client: files older than the
 * max age (by their modification time, which a save sets) go, and
 * temporaries (writeFileAtomic's `.<name>.<pid>.<ms>.tmp`) a day old.
 */
import { readdirSync, rmSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { TEMPORARY_NAME } from '../../fs/atomic-write.ts';
import { type Clock, DAY, HOUR } from '../clock.ts';

/** Whether `name` in `dir` is a temporary left by a write that never finished: a day old (no write takes a day). `stat`: the file's, when the caller has it. */
export function isLeftoverTemporary(dir: string, name: string, stat?: Stats): boolean {
  if (!TEMPORARY_NAME.test(name)) return false;
  const s = stat ?? statSync(path.join(dir, name), { throwIfNoEntry: false });
  return s !== undefined && Date.now() - s.mtimeMs > DAY;
}

export class FolderSweep {
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
    private readonly maxAgeMs: number,
  ) {}

  /** Sweeps the folder if it was not swept in the last hour. */
  maybe(): void {
    const now = this.clock.now();
    if (now - this.last < HOUR) return;
    this.last = now;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const file = path.join(this.dir, name);
      const stat = statSync(file, { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      // Removed meanwhile by another process sharing the folder: then already gone.
      if (now - stat.mtimeMs >= this.maxAgeMs || isLeftoverTemporary(this.dir, name, stat)) rmSync(file, { force: true });
    }
  }
}
