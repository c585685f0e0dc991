/** The machine's SHA-256 block rate as OpenSSL measures it: the baseline of the PoW table. */
import { spawnSync } from 'node:child_process';

/**
 * Blocks per second of one core from `openssl speed -evp sha256 -bytes 16384`,
 * or null with the reason when openssl is absent or its output unreadable.
 */
export function opensslSha256BlockRate(seconds: number): { rate: number } | { rate: null; reason: string } {
  const run = spawnSync('openssl', ['speed', '-mr', '-evp', 'sha256', '-bytes', '16384', '-seconds', String(seconds)], {
    encoding: 'utf8',
    timeout: (seconds + 30) * 1000,
  });
  if (run.error) return { rate: null, reason: `openssl not runnable: ${run.error.message}` };
  // Machine-readable line: +F:<n>:sha256:<bytes per second>
  const line = run.stdout.split('\n').find((l) => /^\+F:\d+:sha256:/i.test(l));
  const bytesPerSecond = line ? Number(line.split(':')[3]) : NaN;
  if (!Number.isFinite(bytesPerSecond) || bytesPerSecond <= 0) {
    return { rate: null, reason: `unexpected openssl speed output: ${run.stdout.slice(0, 200)}${run.stderr.slice(0, 200)}` };
  }
  return { rate: bytesPerSecond / 64 };
}
