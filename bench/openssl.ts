/** The machine's SHA-256 block rate as OpenSSL measures it: the baseline of the PoW table; and the bench's way of running openssl. */
import { spawn } from 'node:child_process';

export interface ChildRun {
  status: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

/**
 * Runs a baseline program without blocking: the event loop stays free, so a
 * stop signal ends the bench at once, and the child is killed with it rather
 * than left running on its own.
 */
export function runChild(cmd: string, args: string[], timeoutMs: number): Promise<ChildRun> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    const kill = (): void => void child.kill('SIGKILL');
    process.once('exit', kill);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const done = (r: ChildRun): void => {
      process.off('exit', kill);
      resolve(r);
    };
    child.on('error', (error) => done({ status: null, stdout, stderr, error }));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/**
 * Blocks per second of one core from `openssl speed -evp sha256 -bytes 16384`,
 * or null with the reason when openssl is absent or its output unreadable.
 */
export async function opensslSha256BlockRate(seconds: number): Promise<{ rate: number } | { rate: null; reason: string }> {
  const run = await runChild('openssl', ['speed', '-mr', '-evp', 'sha256', '-bytes', '16384', '-seconds', String(seconds)], (seconds + 30) * 1000);
  if (run.error) return { rate: null, reason: `openssl not runnable: ${run.error.message}` };
  // Machine-readable line: +F:<n>:sha256:<bytes per second>
  const line = run.stdout.split('\n').find((l) => /^\+F:\d+:sha256:/i.test(l));
  const bytesPerSecond = line ? Number(line.split(':')[3]) : NaN;
  if (!Number.isFinite(bytesPerSecond) || bytesPerSecond <= 0) {
    return { rate: null, reason: `unexpected openssl speed output: ${run.stdout.slice(0, 200)}${run.stderr.slice(0, 200)}` };
  }
  return { rate: bytesPerSecond / 64 };
}
