/**
 * One `question run` per state dir: each run works from its own copy of the
 * pipeline's queue, so two at once would post the same prompts twice (the
 * service allows 16 a day). The claim is `pipeline.lock`, holding the pid
 * and linked into place (so it is never seen empty); a live holder is refused at once, and a
 * lock left by a killed run is taken over by renaming it aside, which only
 * one of several runs starting together can do.
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

export interface PipelineLock {
  release(): void;
}

function holder(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function alive(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function holdPipeline(stateDir: string): PipelineLock {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const lock = path.join(stateDir, 'pipeline.lock');
  const busy = (pid: number | null): RangeError =>
    new RangeError(`--state-dir ${stateDir} is in use by another question run${pid ? ` (pid ${pid})` : ''}; wait for it to end or stop it, or use another --state-dir`);
  // Written beside it first and linked into place: the lock never exists without its pid.
  const mine = `${lock}.${process.pid}.tmp`;
  const fd = openSync(mine, 'w', 0o600);
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, lock);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = holder(lock);
        if (alive(pid) || attempt > 2) throw busy(pid);
        // Left by a killed run. Renaming it aside is atomic: of several runs doing this at once, one moves it.
        const aside = `${lock}.stale-${process.pid}`;
        try {
          renameSync(lock, aside);
        } catch {
          continue;
        }
        const moved = holder(aside);
        if (moved !== pid && alive(moved)) {
          // Another run took it over in between: that was its live lock; give it back and step aside.
          try {
            linkSync(aside, lock);
          } finally {
            unlinkSync(aside);
          }
          throw busy(moved);
        }
        unlinkSync(aside);
      }
    }
  } finally {
    unlinkSync(mine);
  }
  const release = (): void => {
    try {
      if (holder(lock) === process.pid) unlinkSync(lock);
    } catch {
      // Already gone.
    }
  };
  // Ended by process.exit (a second signal) without release(): the lock goes too.
  process.once('exit', release);
  return {
    release: () => {
      process.off('exit', release);
      release();
    },
  };
}
