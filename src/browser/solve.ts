/**
 * solvePow for browsers: the same checks, answer and result shape as Node's
 * (src/pow/solve.ts, sharing src/pow/solve-input.ts), with the search on Web
 * Workers (fan-out.ts) instead of the thread pool.
 */
import { BackendUnavailableError } from '../errors.ts';
import { MAX_THREADS } from '../limits.ts';
import { powLayout } from '../pow/order.ts';
import { checkChallenge, powResult, searchLimit, type PowChallenge, type PowProgress, type PowSolutionOf } from '../pow/solve-input.ts';
import { RunLifecycle, throwIfAborted } from '../run-lifecycle.ts';
import { abortReason, argumentError, checkCount, checkFunction, checkOneOf, checkSignal, checkThreads, show } from '../validate.ts';
import { checkOptions, optionNames } from '../option-checks.ts';
import { WorkerSearch } from './fan-out.ts';
import { BROWSER_BACKEND_CHOICES, type BrowserBackend, type BrowserBackendChoice } from './protocol.ts';
import { web } from './web.ts';
import { WORKER_SOURCE } from './worker-source.ts';

export interface BrowserSolveOptions {
  /** Web Workers (default: navigator.hardwareConcurrency). The answer does not depend on it. */
  threads?: number;
  /** 'auto' (default) uses the WebAssembly SIMD kernel where it compiles, else the TS kernel. */
  backend?: BrowserBackendChoice;
  /** Stops the search and its workers; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called at most 4 times a second while searching. */
  onProgress?: (p: PowProgress) => void;
  /** Give up (PowExhaustedError) after testing counters 0 .. maxAttempts-1. */
  maxAttempts?: number | bigint;
  /**
   * The worker script powprime/browser-worker.js served by your site, for a
   * Content-Security-Policy that refuses blob: workers. Default: the copy
   * built into this module, started from a Blob URL.
   */
  workerUrl?: string | URL;
}

/** Every option of the browser's solvePow: any other key is refused. */
const BROWSER_SOLVE_OPTIONS = optionNames<BrowserSolveOptions>()(['threads', 'backend', 'signal', 'onProgress', 'maxAttempts', 'workerUrl']);

/** What solvePow returns in a browser: S, its counter, the work done and the backend that did it. */
export interface BrowserPowSolution extends PowSolutionOf<BrowserBackend> {}

const encoder = new TextEncoder();

/**
 * Finds the lowest counter k whose S_k makes SHA-256(nonce‖S_k) start with
 * `difficulty` '0' hex characters: the same S as Node's solvePow, for every
 * backend and worker count.
 */
export async function solvePow(challenge: PowChallenge, opts?: BrowserSolveOptions): Promise<BrowserPowSolution> {
  const options: BrowserSolveOptions = checkOptions('options', opts, 'solvePow', BROWSER_SOLVE_OPTIONS);
  const { nonce, difficulty } = checkChallenge(challenge);
  const threads = options.threads === undefined ? defaultThreads() : checkThreads('threads', options.threads);
  const backend = checkOneOf('backend', options.backend ?? 'auto', BROWSER_BACKEND_CHOICES);
  const signal = checkSignal('signal', options.signal);
  const onProgress = checkFunction<(p: PowProgress) => void>('onProgress', options.onProgress);
  const maxAttempts = options.maxAttempts === undefined ? undefined : checkCount('maxAttempts', options.maxAttempts);
  const workerUrl = options.workerUrl === undefined ? builtInWorkerUrl(backend) : checkWorkerUrl(options.workerUrl);

  throwIfAborted(signal);
  const started = performance.now();
  const layout = powLayout(encoder.encode(nonce).length);
  const limit = searchLimit(layout, maxAttempts);
  const search = new WorkerSearch({ nonce, difficulty, choice: backend, limit, threads, workerUrl });
  const life = new RunLifecycle(
    signal,
    () => search.stop(abortReason(signal!)),
    onProgress &&
      (() => {
        const attempts = Number(search.attempts);
        onProgress({ attempts, hashRate: attempts / ((performance.now() - started) / 1000) });
      }),
  );
  try {
    const outcome = await search.run();
    life.throwIfAborted();
    return powResult(layout, limit, outcome.best, Number(outcome.attempts), started, outcome.backend);
  } finally {
    life.close();
  }
}

function defaultThreads(): number {
  const cores = web.navigator?.hardwareConcurrency;
  return typeof cores === 'number' && cores >= 1 ? Math.min(Math.floor(cores), MAX_THREADS) : 1;
}

function checkWorkerUrl(value: unknown): string {
  if (value instanceof URL) return value.href;
  if (typeof value === 'string' && value !== '') return value;
  throw argumentError(TypeError, 'workerUrl', `must be a URL or a non-empty string (got ${show(value)})`);
}

let blobUrl: string | undefined;

/**
 * The built-in worker script as a Blob URL, made once per page and kept (a
 * worker may fetch its script after new Worker() returns, so it is not revoked).
 */
function builtInWorkerUrl(backend: BrowserBackendChoice): string {
  if (WORKER_SOURCE === '') {
    throw new BackendUnavailableError(backend, 'this copy of the browser entry has no worker script built in: import powprime with the browser condition (dist/browser/powprime.js) or pass workerUrl');
  }
  return (blobUrl ??= URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' })));
}
