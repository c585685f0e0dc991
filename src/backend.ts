/** Which backend runs the work, and what it reports about itself. */
import { isMainThread } from 'node:worker_threads';
import { backendEnv, jsAlone } from './backend-env.ts';
import { BackendUnavailableError } from './errors.ts';
import type { NativeBinding } from './native-binding.ts';
import { native as loadNative, nativeLoadError } from './native.ts';
import { wasmKernel, wasmLoadError } from './pow/wasm-kernel.ts';
import { wasmModexp } from './prime/wasm-bignum.ts';

/** Backends of the safe-prime and bignum work (and of everything but the PoW search). */
export type BackendChoice = 'auto' | 'native' | 'js';
export type Backend = 'native' | 'js';
export const BACKEND_CHOICES: readonly BackendChoice[] = ['auto', 'native', 'js'];

/** The PoW search has a third backend between the two: the WebAssembly SIMD128 kernel. */
export type PowBackendChoice = 'auto' | 'native' | 'wasm' | 'js';
export type PowBackend = 'native' | 'wasm' | 'js';
export const POW_BACKEND_CHOICES: readonly PowBackendChoice[] = ['auto', 'native', 'wasm', 'js'];

export interface BackendInfo {
  /** The backend 'auto' resolves to. */
  backend: Backend;
  /** The backend 'auto' resolves to for the PoW search. */
  powBackend: PowBackend;
  /** The WebAssembly PoW kernel when it loads here ("simd128"), else null. */
  wasm: 'simd128' | null;
  /** Why the WebAssembly kernel is not in use, or null. */
  wasmError: string | null;
  /** Active SHA-256 kernel for the PoW search: "avx512 x48", "sha-ni x5", "sha-ni x2", "avx2 x8", "scalar" or "js". */
  sha256: string;
  /**
   * Bignum kernel in force: "avx512-ifma x8 + mulx/adx", "avx2 x4 + mulx/adx", "mulx/adx", "portable"; on the TS backend
   * (without the addon, or POWPRIME_BACKEND=wasm) "wasm + js" (exponentiations in WebAssembly at the sizes a timing at
   * first use finds it faster, BigInt elsewhere) or "js".
   */
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
  const env = envValue();
  const wasm = wasmKernel() ? ('simd128' as const) : null;
  const wasmError = wasm ? null : wasmLoadError();
  const n = native();
  // What solvePow gets here by default, by resolvePowBackend's own rule; where
  // POWPRIME_BACKEND names one that did not load (solvePow would refuse), what 'auto' gets.
  const powBackend = powBackendFor(env, n !== null, wasm !== null) ?? powBackendFor('auto', n !== null, wasm !== null) ?? 'js';
  // The TS backend's exponentiations; POWPRIME_BACKEND=js keeps them in BigInt too (src/prime/modexp.ts).
  // Asked only where that backend runs: the question loads and times the WebAssembly kernel.
  const tsBignum = (): string => (env !== 'js' && wasmModexp() ? 'wasm + js' : 'js');
  if (!n) {
    return {
      backend: 'js',
      powBackend,
      wasm,
      wasmError,
      sha256: 'js',
      bignum: tsBignum(),
      bignumKernels: [],
      bignumRefused: [],
      kernels: [],
      kernelRates: {},
      refused: [],
      nativeError: nativeLoadError(),
    };
  }
  const info = n.backendInfo();
  // POWPRIME_BACKEND=wasm: the addon is loaded (file locks, sha256(), `backend: 'native'` asked by name),
  // but the prime work runs on the TS backend, so its kernels are what is in use; the addon's stay listed.
  const ts = env === 'wasm';
  return {
    backend: ts ? 'js' : 'native',
    powBackend,
    wasm,
    wasmError,
    sha256: info.sha256,
    bignum: ts ? tsBignum() : info.bignum,
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
let envChecked: PowBackendChoice | undefined;

/**
 * POWPRIME_BACKEND (auto, native, wasm or js, read by backend-env.ts), kept for
 * the process; an unknown value is warned about once, here and not where the
 * addon loads (a file lock alone says nothing), and ignored.
 */
function envValue(): PowBackendChoice {
  if (envChecked) return envChecked;
  const { choice, unknown } = backendEnv();
  envChecked = choice;
  if (unknown !== null) {
    process.emitWarning(`POWPRIME_BACKEND=${JSON.stringify(unknown)} is not one of auto, native, wasm, js; ignored`, { code: 'POWPRIME_BAD_ENV' });
  }
  return envChecked;
}

/** What 'auto' means here for everything but the PoW search: wasm has only a PoW kernel, so it means js. */
function envChoice(): BackendChoice {
  const value = envValue();
  return value === 'wasm' ? 'js' : value;
}

/** Resolves a requested backend; 'auto' follows POWPRIME_BACKEND, else falls back to js and says why, once per process. */
export function resolveBackend(requested: BackendChoice): Backend {
  const choice = requested === 'auto' ? envChoice() : requested;
  if (choice === 'js') return 'js';
  if (native()) return 'native';
  const reason = nativeLoadError() ?? 'unknown';
  if (choice === 'native') throw new BackendUnavailableError('native', reason);
  if (!warned && !jsAlone()) {
    warned = true;
    process.emitWarning(`using the TypeScript backend: the native addon did not load (${reason})`, {
      code: 'POWPRIME_NO_NATIVE',
    });
  }
  return 'js';
}

/**
 * Resolves a requested PoW backend: 'auto' follows POWPRIME_BACKEND, else is
 * native where the addon loaded, wasm where the WebAssembly kernel loads, and
 * js otherwise (said once per process, with why).
 */
export function resolvePowBackend(requested: PowBackendChoice): PowBackend {
  const choice = requested === 'auto' ? envValue() : requested;
  // The addon and the WebAssembly module load on first use: ask only for what the rule reads.
  if (choice === 'js') return 'js';
  const loaded = choice !== 'wasm' && native() !== null;
  const wasm = (choice === 'wasm' || (choice === 'auto' && !loaded)) && wasmKernel() !== null;
  const backend = powBackendFor(choice, loaded, wasm);
  if (backend === null) {
    throw choice === 'wasm' ? new BackendUnavailableError('wasm', wasmLoadError() ?? 'unknown') : new BackendUnavailableError('native', nativeLoadError() ?? 'unknown');
  }
  if (backend === 'native' || choice === 'wasm') return backend;
  const reason = nativeLoadError() ?? 'unknown';
  if (!warned) {
    warned = true;
    const instead = wasm ? 'the WebAssembly kernel for proof of work' : `the TypeScript backend (no WebAssembly kernel either: ${wasmLoadError()})`;
    process.emitWarning(`using ${instead}: the native addon did not load (${reason})`, { code: 'POWPRIME_NO_NATIVE' });
  }
  return backend;
}

/**
 * The PoW backend a choice gets, given what loaded: the one rule behind
 * resolvePowBackend and backendInfo. null where the choice names a backend
 * that did not load.
 */
function powBackendFor(choice: PowBackendChoice, nativeLoaded: boolean, wasmLoaded: boolean): PowBackend | null {
  if (choice === 'js') return 'js';
  if (choice === 'wasm') return wasmLoaded ? 'wasm' : null;
  if (nativeLoaded) return 'native';
  if (choice === 'native') return null;
  return wasmLoaded ? 'wasm' : 'js';
}
