/**
 * What the page and its search workers say to each other (see fan-out.ts and
 * worker.ts). Counters travel as bigints, which structured clone carries.
 */

/** Backends a browser can run: the WebAssembly SIMD kernel or the TS kernel. */
export type BrowserBackend = 'wasm' | 'js';
/** 'auto' (default) is 'wasm' where WebAssembly SIMD compiles, else 'js'. */
export type BrowserBackendChoice = 'auto' | BrowserBackend;
export const BROWSER_BACKEND_CHOICES: readonly BrowserBackendChoice[] = ['auto', 'wasm', 'js'];

/**
 * Counters per chunk: a few milliseconds of one worker's work, so a found k
 * soon stops the rest, and divisors of 10^12 (as in src/pow/range.ts), so no
 * chunk crosses a window and a kernel call stays inside one.
 */
export const CHUNK_SIZE: Record<BrowserBackend, bigint> = { wasm: 100_000n, js: 20_000n };

export type ToWorker = { type: 'start'; nonce: string; difficulty: number; backend: BrowserBackendChoice } | { type: 'chunk'; start: bigint; end: bigint };

export type FromWorker =
  | { type: 'ready'; backend: BrowserBackend }
  /** The lowest hit in [start, end) or null, and the candidates hashed (up to and including the hit). */
  | { type: 'done'; start: bigint; found: bigint | null; work: bigint }
  /** `unavailable`: the backend cannot run in this page (no SIMD, a CSP refusing eval), rather than a bug. */
  | { type: 'failed'; unavailable: boolean; backend: string; reason: string };
