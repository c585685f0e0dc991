/**
 * The few browser APIs the browser entry uses, declared here so that it (and
 * its published types) compiles without the DOM library or @types/node.
 */

export interface WebWorker {
  postMessage(message: unknown): void;
  terminate(): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: { message?: string; preventDefault(): void }) => void) | null;
}

/** The worker's side: its global scope. */
export interface WorkerScope {
  postMessage(message: unknown): void;
  onmessage: ((event: { data: unknown }) => void) | null;
}

interface WebGlobals {
  Worker?: new (url: string, options?: { name?: string }) => WebWorker;
  navigator?: { hardwareConcurrency?: number };
}

export const web = globalThis as unknown as WebGlobals;
