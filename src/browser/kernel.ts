/**
 * The kernel a search worker runs: the WebAssembly SIMD kernel where it
 * compiles, else the TS kernel. Both walk the canonical order and return the
 * lowest hit of a range, so the answer does not depend on which one ran.
 */
import { BackendUnavailableError } from '../errors.ts';
import { searchRangeJs } from '../pow/kernel.ts';
import type { PowTarget } from '../pow/target.ts';
// The WASM kernel compiles synchronously: it is loaded in workers only, never on the page.
import { wasmKernel, wasmLoadError } from '../pow/wasm-kernel.ts';
import type { BrowserBackend, BrowserBackendChoice } from './protocol.ts';

export interface RangeKernel {
  /** Lowest k in [kStart, kEnd) meeting the target's difficulty, or null; the range stays inside one window. */
  search(target: PowTarget, kStart: bigint, kEnd: bigint): bigint | null;
}

const jsKernel: RangeKernel = { search: searchRangeJs };

/** The kernel for `choice` in this worker; 'wasm' where WebAssembly SIMD is missing is BackendUnavailableError. */
export function pickKernel(choice: BrowserBackendChoice): { backend: BrowserBackend; kernel: RangeKernel } {
  if (choice !== 'js') {
    const wasm = wasmKernel();
    if (wasm) return { backend: 'wasm', kernel: wasm };
    if (choice === 'wasm') throw new BackendUnavailableError('wasm', `${wasmLoadError()} (an older browser, or a CSP without wasm-unsafe-eval?)`);
  }
  return { backend: 'js', kernel: jsKernel };
}
