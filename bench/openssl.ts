/**
 * The machine's SHA-256 block rate as OpenSSL measures it: the baseline of the
 * PoW table; its scaling over processes (`-multi`): the baseline of the thread
 * goal; and the bench's way of running openssl.
 */
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

type BlockRate = { rate: number } | { rate: null; reason: string };

/** One `openssl speed -evp sha256 -bytes 16384` run with `extra` options: its SHA-256 blocks per second, or null with the reason. */
async function speedRun(seconds: number, extra: string[]): Promise<BlockRate> {
  const run = await runChild('openssl', ['speed', '-mr', ...extra, '-evp', 'sha256', '-bytes', '16384', '-seconds', String(seconds)], (seconds + 30) * 1000);
  if (run.error) return { rate: null, reason: `openssl not runnable: ${run.error.message}` };
  // Machine-readable line: +F:<n>:sha256:<bytes per second>; with -multi the parent's line is the children's sum
  // (each child's own comes as "Got: +F:… from <child>").
  const line = run.stdout.split('\n').find((l) => /^\+F:\d+:sha256:/i.test(l));
  const bytesPerSecond = line ? Number(line.split(':')[3]) : NaN;
  if (run.status !== 0 || !Number.isFinite(bytesPerSecond) || bytesPerSecond <= 0) {
    return { rate: null, reason: `unexpected openssl speed ${extra.join(' ')} output: ${run.stdout.slice(0, 200)}${run.stderr.slice(0, 200)}`.replace(/\s+/g, ' ').trim() };
  }
  return { rate: bytesPerSecond / 64 };
}

/**
 * Blocks per second of one core from `openssl speed -evp sha256 -bytes 16384`,
 * or null with the reason when openssl is absent or its output unreadable.
 * openssl divides by its CPU time here (its default), so time the machine
 * gives to other work does not lower the figure.
 */
export function opensslSha256BlockRate(seconds: number): Promise<BlockRate> {
  return speedRun(seconds, []);
}

/**
 * The machine's own scaling, as OpenSSL sees it: blocks per second of one
 * `openssl speed` process and of `processes` of them at once (`-multi`, their
 * sum), both over wall time (`-elapsed`), like the bench's thread ratio: CPU
 * time would not see two processes sharing one core, a CPU quota, or a host
 * that runs two busy virtual cores slower than one. Null with the reason where
 * it cannot be measured (no openssl; no `-multi`, as on Windows).
 */
export async function opensslSha256Scaling(processes: number, seconds: number): Promise<{ single: number; multi: number } | { single: null; multi: null; reason: string }> {
  const single = await speedRun(seconds, ['-elapsed']);
  if (single.rate === null) return { single: null, multi: null, reason: single.reason };
  const multi = await speedRun(seconds, ['-elapsed', '-multi', String(processes)]);
  if (multi.rate === null) return { single: null, multi: null, reason: multi.reason };
  return { single: single.rate, multi: multi.rate };
}
