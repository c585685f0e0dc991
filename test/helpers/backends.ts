/**
 * The backends a suite runs over. The TS backend runs everywhere; the native
 * one only where the addon loaded, and where it did not, its suites are
 * reported as skipped (with the reason), never as passing.
 */
import { describe } from 'vitest';
import { backendInfo, type Backend } from '../../src/index.ts';
import { native } from '../../src/native.ts';

const info = backendInfo();
export const hasNative = info.backend === 'native';

/** The backends this machine has, native first. */
export const backends: readonly Backend[] = hasNative ? ['native', 'js'] : ['js'];

/** describe(name) once per backend; the native one is skipped, saying why, where the addon is absent. */
export function describeBackends(name: string, suite: (backend: Backend) => void): void {
  for (const backend of ['native', 'js'] as const) {
    const runs = backend === 'js' || hasNative;
    const title = runs ? `${name} (${backend})` : `${name} (native: skipped, ${info.nativeError})`;
    describe.skipIf(!runs)(title, () => suite(backend));
  }
}

/** Where the addon is absent, one skipped test that says the suite's native half did not run. */
export function skipNativeNotice(what: string): void {
  if (!hasNative) describe.skip(`${what} (addon not loaded: ${info.nativeError})`, () => {});
}

/** What backendInfo().bignum says with each native bignum kernel in force. */
export const BIGNUM_KERNEL_NAMES = { portable: 'portable', adx: 'mulx/adx', ifma: 'avx512-ifma x8 + mulx/adx' } as const;

/**
 * The native bignum kernels this CPU really runs (portable, MULX/ADX, AVX-512
 * IFMA): a kernel the CPU lacks is capped to a lower one, so each is kept
 * only when asking for it gives its own name. Leaves the best one in force.
 */
export function usableBignumKernels(): (keyof typeof BIGNUM_KERNEL_NAMES)[] {
  const n = hasNative ? native() : null;
  if (!n) return [];
  const kernels = (['portable', 'adx', 'ifma'] as const).filter((k) => n.setBignumKernel(k) === BIGNUM_KERNEL_NAMES[k]);
  n.setBignumKernel('ifma');
  return kernels;
}
