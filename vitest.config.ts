import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Suites share one machine of 2 cores; the pool-based suites already use both.
    fileParallelism: false,
  },
});
