/**
 * The one loader of the native addon. It returns the typed binding, or null
 * with the reason kept, and never throws: without the addon the library runs
 * on the TS backend.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { packageRoot } from './package-root.ts';

export interface NativeBackendInfo {
  /** The kernel the PoW search uses, with its lane count: "sha-ni x2", "avx2 x8", "scalar". */
  sha256: string;
  /** The kernel used to hash whole messages. */
  hasher: string;
  /** Ids of the kernels usable on this CPU, best first. */
  kernels: string[];
  /** Kernels compiled in but not usable here, with the reason. */
  refused: string[];
  cpu: { shaNi: boolean; avx2: boolean; bmi2: boolean; adx: boolean; avx512ifma: boolean };
  /** The bignum multiplication kernels in use: "avx512-ifma x4 + mulx/adx", "mulx/adx" or "portable". */
  bignum: string;
}

export interface NativeSieve {
  search(j0: number, j1: number): { found: number | null; sieved: number; tested: number };
}

export interface NativeBinding {
  setBignumKernel(kernel: 'portable' | 'adx' | 'ifma'): string;
  isProbablePrime(n: bigint, rounds?: number, trial?: boolean): boolean;
  isSafePrime(p: bigint, rounds?: number): boolean;
  modPow(base: bigint, exponent: bigint, modulus: bigint): bigint;
  pow2Mod(exponent: bigint, modulus: bigint): bigint;
  SafePrimeSieve: new (start: bigint, sieveLimit: number, rounds?: number) => NativeSieve;
  backendInfo(): NativeBackendInfo;
  sha256(data: Uint8Array, kernel?: string): Uint8Array;
  powSearch(
    mid: Uint32Array,
    block: Uint8Array,
    digitsEnd: number,
    digitsCount: number,
    difficulty: number,
    kStart: bigint,
    kEnd: bigint,
    kernel?: string,
  ): bigint | null;
}

let loaded: { binding: NativeBinding | null; error: string | null } | undefined;

function load(): { binding: NativeBinding | null; error: string | null } {
  if (process.env.POWPRIME_BACKEND === 'js') return { binding: null, error: 'POWPRIME_BACKEND=js' };
  const file = path.join(packageRoot(), 'build', 'Release', 'powprime.node');
  if (!existsSync(file)) return { binding: null, error: `native addon not built (${file} is missing)` };
  try {
    const binding = createRequire(import.meta.url)(file) as NativeBinding;
    return { binding, error: null };
  } catch (err) {
    return { binding: null, error: `native addon failed to load: ${(err as Error).message}` };
  }
}

/** The native binding, or null (see nativeLoadError()). */
export function native(): NativeBinding | null {
  loaded ??= load();
  return loaded.binding;
}

/** Why native() is null, or null when it loaded. */
export function nativeLoadError(): string | null {
  loaded ??= load();
  return loaded.error;
}
