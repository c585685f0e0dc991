import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real redis-server for the queue tests (see the file).
    globalSetup: ['test/helpers/redis-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Suites share one machine of 2 cores; the pool-based suites already use both.
    fileParallelism: false,
  },
});
