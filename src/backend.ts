/** Which backend runs the work, and what it reports about itself. */
import { isMainThread } from 'node:worker_threads';
import { BackendUnavailableError } from './errors.ts';
import { native as loadNative, nativeLoadError, type NativeBinding } from './native.ts';

export type BackendChoice = 'auto' | 'native' | 'js';
export type Backend = 'native' | 'js';
export const BACKEND_CHOICES: readonly BackendChoice[] = ['auto', 'native', 'js'];

export interface BackendInfo {
  /** The backend 'auto' resolves to. */
  backend: Backend;
  /** Active SHA-256 kernel for the PoW search: "avx512 x48", "sha-ni x5", "sha-ni x2", "avx2 x8", "scalar" or "js". */
  sha256: string;
  /** Bignum kernel in force: "avx512-ifma x8 + mulx/adx", "mulx/adx", "portable" or "js". */
  bignum: string;
  /** Ids of the native bignum kernels usable on this CPU, best first (empty without the addon). */
  bignumKernels: string[];
  /** Native bignum kernels compiled in but refused here, with the reason. */
  bignumRefused: string[];
  /** Native PoW kernels usable on this CPU, fastest first (empty without the addon). */
  kernels: string[];
  /** Hashes per second each of them reached on one thread in the short timing at load that ranked them. */
  kernelRates: Record<string, number>;
  /** Native SHA-256 kernels compiled in but refused here, with the reason. */
  refused: string[];
  /** Why the native addon is not in use, or null. */
  nativeError: string | null;
}

export function backendInfo(): BackendInfo {
  // What runs here depends on POWPRIME_BACKEND too: a value it cannot honour is said here as well.
  envChoice();
  const n = native();
  if (!n) {
    return { backend: 'js', sha256: 'js', bignum: 'js', bignumKernels: [], bignumRefused: [], kernels: [], kernelRates: {}, refused: [], nativeError: nativeLoadError() };
  }
  const info = n.backendInfo();
  return {
    backend: 'native',
    sha256: info.sha256,
    bignum: info.bignum,
    bignumKernels: info.bignumKernels,
    bignumRefused: info.bignumRefused,
    kernels: info.kernels,
    kernelRates: info.searcherRates,
    refused: info.refused,
    nativeError: null,
  };
}

let kernelRequestChecked = false;

/**
 * The addon for work on this backend. POWPRIME_POW_KERNEL is read by the addon
 * itself; a value it could not honour is said here, once per process, when
 * the backend is first asked for (not when the addon is loaded only for a
 * file lock: reading the kernel list runs the kernels' timing).
 */
function native(): NativeBinding | null {
  const n = loadNative();
  if (n && !kernelRequestChecked) {
    kernelRequestChecked = true;
    const want = process.env.POWPRIME_POW_KERNEL;
    // Pool threads resolve no backend; the main thread speaks for all of them.
    const kernels = want && isMainThread ? n.backendInfo().kernels : [];
    if (want && isMainThread && !kernels.includes(want)) {
      process.emitWarning(`POWPRIME_POW_KERNEL=${JSON.stringify(want)} is not a PoW kernel usable here (${kernels.join(', ')}); ignored`, { code: 'POWPRIME_BAD_ENV' });
    }
  }
  return n;
}

let warned = false;
let envChecked: BackendChoice | undefined;

/** What 'auto' means here: POWPRIME_BACKEND when set (js, native or auto); an unknown value is warned about once and ignored. */
function envChoice(): BackendChoice {
  if (envChecked) return envChecked;
  const value = process.env.POWPRIME_BACKEND;
  envChecked = 'auto';
  if (value === 'js' || value === 'native') envChecked = value;
  else if (value !== undefined && value !== '' && value !== 'auto') {
    process.emitWarning(`POWPRIME_BACKEND=${JSON.stringify(value)} is not one of auto, native, js; ignored`, { code: 'POWPRIME_BAD_ENV' });
  }
  return envChecked;
}

/** Resolves a requested backend; 'auto' follows POWPRIME_BACKEND, else falls back to js and says why, once per process. */
export function resolveBackend(requested: BackendChoice): Backend {
  const choice = requested === 'auto' ? envChoice() : requested;
  if (choice === 'js') return 'js';
  if (native()) return 'native';
  const reason = nativeLoadError() ?? 'unknown';
  if (choice === 'native') throw new BackendUnavailableError('native', reason);
  if (!warned && process.env.POWPRIME_BACKEND !== 'js') {
    warned = true;
    process.emitWarning(`native addon unavailable (${reason}); using the TypeScript backend`, {
      code: 'POWPRIME_NO_NATIVE',
    });
  }
  return 'js';
}
