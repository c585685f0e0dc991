/** Independent SHA-256 implementations used as oracles: node:crypto, Python's hashlib, the openssl CLI. */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';

export function nodeSha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export function hasCommand(cmd: string, args: string[]): boolean {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return !r.error && r.status === 0;
}

/** Digests of several messages from Python's hashlib in one process. */
export function pythonSha256Hex(messages: Uint8Array[]): string[] {
  const input = messages.map((m) => Buffer.from(m).toString('hex')).join('\n');
  const r = spawnSync('python3', ['-c', 'import sys,hashlib\nfor l in sys.stdin.read().split("\\n"): print(hashlib.sha256(bytes.fromhex(l)).hexdigest())'], {
    input,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return r.stdout.trim().split('\n');
}

export function opensslSha256Hex(message: Uint8Array): string {
  const r = spawnSync('openssl', ['dgst', '-sha256', '-r'], { input: Buffer.from(message), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  return r.stdout.split(' ')[0]!;
}

/** A deterministic pseudo-random stream for test inputs (xorshift32), so failures reproduce. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}
