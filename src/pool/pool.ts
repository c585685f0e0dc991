/**
 * The one worker pool, created on first use. Idle workers are unref'd by
 * piscina, so the pool never keeps the process alive once work is done.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';

let pool: Piscina | null = null;

/** Threads the pool runs at most: one per core. */
export function poolSize(): number {
  return availableParallelism();
}

export function getPool(): Piscina {
  if (!pool) {
    // Under a TS runner (tests) this module is the .ts source and the worker
    // must be loaded through tsx; from dist/ it is plain JS.
    const fromSource = import.meta.url.endsWith('.ts');
    pool = new Piscina({
      filename: fileURLToPath(new URL(fromSource ? './worker.ts' : './worker.js', import.meta.url)),
      minThreads: 0,
      maxThreads: poolSize(),
      idleTimeout: 10_000,
      execArgv: fromSource ? ['--import', 'tsx'] : [],
    });
  }
  return pool;
}

/** Stops every worker (for tools that want a clean exit at once). */
export async function closePool(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.destroy();
}
