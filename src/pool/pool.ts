/**
 * The one worker pool, created on first use (piscina itself is loaded then:
 * commands that hand no work to threads never load it). Idle workers are
 * unref'd by piscina, so the pool never keeps the process alive once work is
 * done. The pool runs whatever worker module its caller names; it knows no
 * tasks. A thread loads the native addon only when its first task needs it
 * (native.ts).
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import { PoolClosedError } from '../errors.ts';
import { shared, type SharedSearch } from './shared-search.ts';

// Under a TS runner (tests) the modules are .ts sources and workers load
// them through tsx; from dist/ everything is plain JS.
const fromSource = import.meta.url.endsWith('.ts');

let pool: Piscina | null = null;

/** Threads the pool runs at most: one per core. */
export function poolSize(): number {
  return availableParallelism();
}

async function getPool(): Promise<Piscina> {
  const { Piscina } = await import('piscina');
  pool ??= new Piscina({
    minThreads: 0,
    maxThreads: poolSize(),
    idleTimeout: 10_000,
    execArgv: fromSource ? ['--import', 'tsx'] : [],
    // piscina's run/wait-time histograms are native memory the JS engine is
    // not told of, so a closed pool's linger until a full collection: 0.2 MB
    // a pool, hundreds of MB over thousands of closePool() calls. Nothing
    // here reads them.
    recordTiming: false,
  });
  return pool;
}

/**
 * Runs `task` on a pool thread with the default export of `worker`, named by
 * its .ts source (from dist/, its compiled .js twin runs).
 */
export async function runTask<R>(worker: URL, task: object): Promise<R> {
  const file = fileURLToPath(worker);
  const p = await getPool();
  try {
    return (await p.run(task, { filename: fromSource ? file : file.replace(/\.ts$/, '.js') })) as R;
  } catch (err) {
    // piscina's own rejection says only that a worker was terminated.
    if (p !== pool) throw new PoolClosedError({ cause: err });
    throw err;
  }
}

/**
 * Runs `task` on `threads` pool threads at once (at most one per core), all
 * sharing `s`; the first failure stops the others through `s`.
 */
export async function runOnThreads(worker: URL, task: object, threads: number, s: SharedSearch): Promise<void> {
  const runs = Array.from({ length: Math.min(threads, poolSize()) }, () =>
    runTask(worker, task).catch((err: unknown) => {
      shared.stop(s);
      throw err;
    }),
  );
  await Promise.all(runs);
}

/** Stops every worker (for tools that want a clean exit at once); work still running rejects with PoolClosedError. */
export async function closePool(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.destroy();
}
