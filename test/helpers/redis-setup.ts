/**
 * vitest globalSetup: one real redis-server for the queue tests, on a free
 * port (redis's --port 0 turns TCP off rather than picking a port), nothing
 * saved to disk, stopped at the end. Its URL reaches tests through
 * inject('redisUrl'); '' when redis-server is not installed (the queue
 * suite then says so, or fails where POWPRIME_REQUIRE_REDIS=1, as in CI).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { freePort, redisEnv, waitForRedis } from './redis.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (spawnSync('redis-server', ['--version']).error) {
    project.provide('redisUrl', '');
    return async () => {};
  }
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore', env: redisEnv() });
  await waitForRedis(port);
  project.provide('redisUrl', `redis://127.0.0.1:${port}`);
  return async () => {
    child.kill('SIGKILL');
  };
}
