/** Starting and waiting for real redis-server processes in tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';

/** The environment for redis-server: without a sanitizer runtime preloaded for the addon's sake (npm run test:sanitize). */
export function redisEnv(): NodeJS.ProcessEnv {
  const { LD_PRELOAD: _preload, ...env } = process.env;
  return env;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once redis answers PING on the port. */
export async function waitForRedis(port: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = createConnection(port, '127.0.0.1');
      c.on('error', () => resolve(false));
      c.on('connect', () => c.write('PING\r\n'));
      c.on('data', (d) => {
        c.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
}

/** A redis-server of the test's own (to kill and restart), on `port` or a free one. */
export async function startRedis(port?: number): Promise<{ port: number; url: string; child: ChildProcess }> {
  const p = port ?? (await freePort());
  const child = spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore', env: redisEnv() });
  await waitForRedis(p);
  return { port: p, url: `redis://127.0.0.1:${p}`, child };
}
