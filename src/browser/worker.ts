/**
 * A browser search worker: told the challenge once, then searches the chunks
 * of counters the page hands it (fan-out.ts), in the order they come, and
 * answers each with its lowest hit. It keeps no state of the search itself,
 * so the page alone decides which hit is the lowest.
 */
import { BackendUnavailableError } from '../errors.ts';
import { PowTarget } from '../pow/target.ts';
import { pickKernel, type RangeKernel } from './kernel.ts';
import type { BrowserBackend, BrowserBackendChoice, FromWorker, ToWorker } from './protocol.ts';
import type { WorkerScope } from './web.ts';

const scope = globalThis as unknown as WorkerScope;
let target: PowTarget | undefined;
let kernel: RangeKernel | undefined;
let backend: BrowserBackend | BrowserBackendChoice = 'auto';

const post = (m: FromWorker): void => scope.postMessage(m);

scope.onmessage = (event) => {
  const m = event.data as ToWorker;
  try {
    if (m.type === 'start') {
      backend = m.backend;
      const picked = pickKernel(m.backend);
      [target, kernel, backend] = [new PowTarget(m.nonce, m.difficulty), picked.kernel, picked.backend];
      post({ type: 'ready', backend: picked.backend });
      return;
    }
    if (!target || !kernel) throw new Error('a chunk came before the challenge');
    const found = kernel.search(target, m.start, m.end);
    post({ type: 'done', start: m.start, found, work: found === null ? m.end - m.start : found - m.start + 1n });
  } catch (err) {
    // The TS kernel builds its rounds with new Function: a CSP without unsafe-eval refuses that (EvalError).
    const unavailable = err instanceof BackendUnavailableError || err instanceof EvalError;
    const reason =
      err instanceof EvalError
        ? `the page's Content-Security-Policy refuses eval, which the TS kernel needs (${err.message})`
        : err instanceof BackendUnavailableError
          ? err.reason
          : String((err as Error)?.stack ?? err);
    post({ type: 'failed', unavailable, backend, reason });
  }
};
