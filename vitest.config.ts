import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The fast project (`npm run test:fast`, for each edit): suites of seconds that
 * start no long-lived processes, no Redis, no emulator and no browser. The
 * slow project is everything else; `npm test` runs both. CONTRIBUTING.md
 * gives each project's duration. A file named here that does not exist fails
 * test/structure.test.ts (vitest itself would say nothing).
 */
export const FAST_FILES = [
  'test/boundaries.test.ts',
  'test/bench-moduli.test.ts',
  'test/bench-scaling.test.ts',
  'test/cli-docs.test.ts',
  'test/cli-install.test.ts',
  'test/dh-pem.test.ts',
  'test/docs-links.test.ts',
  'test/fuzz.test.ts',
  'test/install-fallback.test.ts',
  'test/libc-detect.test.ts',
  'test/linked-signal.test.ts',
  'test/moduli-format.test.ts',
  'test/moduli-generate.test.ts',
  'test/native-tables.test.ts',
  'test/pack-prebuilds.test.ts',
  'test/pow-api.test.ts',
  'test/pow-order.test.ts',
  'test/question-client.test.ts',
  'test/question-pipeline.test.ts',
  'test/question-posting.test.ts',
  'test/rate-limiter-shared.test.ts',
  'test/registry-client.test.ts',
  'test/registry-crypto.test.ts',
  'test/search-stop.test.ts',
  'test/sha256.test.ts',
  'test/sieve-depth.test.ts',
  'test/sieve-derived.test.ts',
  'test/sieve-differential.test.ts',
  'test/sieve-roots.test.ts',
  'test/state-files.test.ts',
  'test/stream-v2.test.ts',
  'test/structure.test.ts',
  'test/ad-client.test.ts',
  'test/browser-fan-out.test.ts',
  'test/challenge.test.ts',
  'test/challenge-difficulty.test.ts',
  'test/challenge-fuzz.test.ts',
  'test/wasm-kernel.test.ts',
  'test/wasm-bignum.test.ts',
  'test/bench-wasm-modexp.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Suites share one machine of 2 cores; the pool-based suites already use both.
    fileParallelism: false,
    // A test that asserts nothing cannot fail: every test must make at least one assertion.
    expect: { requireAssertions: true },
    projects: [
      { extends: true, test: { name: 'fast', include: FAST_FILES } },
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...FAST_FILES],
          // One real redis-server for the queue tests (see the file).
          globalSetup: ['test/helpers/redis-setup.ts'],
        },
      },
    ],
  },
});
