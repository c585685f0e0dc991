/**
 * The backends a suite runs over. The TS backend runs everywhere; the native
 * one only where the addon loaded, and where it did not, its suites are
 * reported as skipped (with the reason), never as passing.
 */
import { describe } from 'vitest';
import { backendInfo, type Backend } from '../../src/index.ts';

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

/**
 * The native bignum kernels this CPU runs, best first, as the addon admitted
 * them at load (CPU features, then a self-test): the ids setBignumKernel takes.
 */
export function usableBignumKernels(): string[] {
  return hasNative ? info.bignumKernels : [];
}

/**
 * True in `npm run test:sanitize`, whose addon is instrumented: there the SIMD
 * lane kernels run 30 times as slow (every load and store checked), so a
 * suite may check each shape of batch once instead of many random ones.
 */
export const underSanitizers = /libasan/.test(process.env.LD_PRELOAD ?? '');
