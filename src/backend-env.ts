/**
 * POWPRIME_BACKEND, read in this one place. Three files act on it:
 * backend.ts resolves the backends by it (and warns about a value it cannot
 * honour), native.ts does not load the addon under =js, and prime/modexp.ts
 * keeps the TS backend's exponentiations in BigInt under =js; one reading
 * keeps "=js means TypeScript alone" a single rule. No Node built-ins: modexp.ts
 * may be loaded by a browser, where there is no process and so no variable.
 * Nothing is cached here: each caller keeps what it read for as long as it did.
 */
import type { PowBackendChoice } from './backend.ts';

export interface BackendEnv {
  /** What the variable asks for: 'auto' when it is unset, empty, 'auto' or a value naming no backend. */
  choice: PowBackendChoice;
  /** The value as set when it names no backend (for backend.ts's warning), else null. */
  unknown: string | null;
}

export function backendEnv(): BackendEnv {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.POWPRIME_BACKEND;
  if (value === 'js' || value === 'native' || value === 'wasm') return { choice: value, unknown: null };
  return { choice: 'auto', unknown: value === undefined || value === '' || value === 'auto' ? null : value };
}

/** POWPRIME_BACKEND=js: TypeScript alone, with no addon and no WebAssembly, for proof of work and the prime work alike. */
export function jsAlone(): boolean {
  return backendEnv().choice === 'js';
}
