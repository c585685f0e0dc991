import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Three projects. `fast` (`npm run test:fast`, for each edit): suites of
 * seconds that start no long-lived processes, no Redis, no emulator and no
 * browser. The rest is slow, in two: `slow-alone`, the suites that keep both
 * cores busy or measure the machine, one file at a time; `slow`, suites that
 * keep about one core busy (measured: CPU time within 10% of wall time, or
 * less), two files at a time, after the others. `npm test` runs all three.
 * CONTRIBUTING.md gives the durations. A file named here that does not exist
 * fails test/structure.test.ts (vitest itself would say nothing).
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
  'test/scheduler.test.ts',
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
  'test/time-left.test.ts',
  'test/progress-numbers.test.ts',
];

/**
 * Slow suites that must run alone: their pools or parallel searches use both
 * cores (CPU time 1.2–1.5× wall time), or they measure the machine (other
 * processes' CPU time, the addon's memory). The bench's suite is not here: it
 * checks the result's shape, not its figures, and a neighbour's load only
 * makes its run say it was busy.
 */
export const ALONE_FILES = [
  'test/cli-moduli.test.ts',
  'test/cli-moduli-merge.test.ts',
  'test/close-pool.test.ts',
  'test/dhparam.test.ts',
  'test/host-state.test.ts',
  'test/native-memory.test.ts',
  'test/out-files.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // One file at a time unless a project says otherwise: a machine of 2 cores.
    fileParallelism: false,
    // A test that asserts nothing cannot fail: every test must make at least one assertion.
    expect: { requireAssertions: true },
    projects: [
      { extends: true, test: { name: 'fast', include: FAST_FILES } },
      {
        extends: true,
        test: {
          name: 'slow-alone',
          include: ALONE_FILES,
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...FAST_FILES, ...ALONE_FILES],
          // One real redis-server for the queue tests (see the file).
          globalSetup: ['test/helpers/redis-setup.ts'],
          // Two files at a time, each keeping about one core busy; after the
          // one-at-a-time projects (a group's projects share one worker count).
          fileParallelism: true,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
