// The linux-arm64 addon, cross-built (npm run build:native:arm64) and run on
// an arm64 Node under qemu-aarch64 (scripts/arm64-node.mjs fetches it): its
// SHA-256 kernels against node:crypto, its PoW answers against the TS backend
// for every nonce length mod 64, its primality verdicts against the TS
// backend and node:crypto, and a seeded safe-prime search against x64's.
// Skipped, saying why, where the toolchain is missing; `npm run test:arm64`
// (in CI) requires it.
import { spawnSync } from 'node:child_process';
import { checkPrimeSync, createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closePool } from '../src/index.ts';
import { messages, numbers } from './arm64/inputs.mjs';
import { ARM64_NODE_PATH } from '../scripts/arm64-node.mjs';
import { tsPowAnswers, tsVerdicts, x64Primes } from './helpers/foreign-answers.ts';

afterAll(() => closePool());

const root = path.join(import.meta.dirname, '..');
const addon = path.join(root, 'build-arm64', 'Release', 'powprime.node');
const armNode = ARM64_NODE_PATH;
const qemu = spawnSync('qemu-aarch64', ['--version']).status === 0;
const missing = [
  !qemu && 'qemu-aarch64 (Debian: qemu-user)',
  !existsSync(addon) && 'build-arm64/ (npm run build:native:arm64)',
  !existsSync(armNode) && 'the arm64 Node (node scripts/arm64-node.mjs)',
  !existsSync(path.join(root, 'dist', 'src', 'index.js')) && 'dist/ (npm run prepare)',
].filter(Boolean);
if (missing.length && process.env.POWPRIME_REQUIRE_ARM64 === '1') throw new Error(`arm64 check required but missing: ${missing.join(', ')}`);

interface ArmReport {
  arch: string;
  info: { backend: string; sha256: string; kernels: string[] };
  sha: Record<string, string[]>;
  pow: string[];
  verdicts: [boolean, boolean][];
  primes: string[];
}

describe.skipIf(missing.length > 0)(`linux-arm64 addon under qemu${missing.length ? ` (skipped: missing ${missing.join(', ')})` : ''}`, () => {
  let report: ArmReport;
  const run = (): ArmReport => {
    if (report) return report;
    const r = spawnSync('qemu-aarch64', ['-L', '/usr/aarch64-linux-gnu', armNode, 'test/arm64/check.mjs'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, POWPRIME_ADDON_PATH: addon, POWPRIME_BACKEND: '' },
      timeout: 300_000,
      maxBuffer: 64 << 20,
    });
    if (r.status !== 0) throw new Error(`arm64 check failed (${r.status}): ${r.stderr}`);
    return (report = JSON.parse(r.stdout) as ArmReport);
  };

  it('loads as an arm64 addon on the native backend, with the ARMv8 SHA-2 kernel (qemu emulates it)', () => {
    const r = run();
    expect(r.arch).toBe('arm64');
    expect(r.info.backend).toBe('native');
    expect(r.info.sha256).toBe('armv8-sha2 x2');
    expect(r.info.kernels).toEqual(['armv8-sha2', 'scalar']);
  }, 300_000);

  it('every SHA-256 kernel it has (ARMv8 and scalar) agrees with node:crypto on 301 message lengths', () => {
    expect(Object.keys(run().sha)).toEqual(['armv8-sha2', 'scalar']);
    const want = messages().map((m) => createHash('sha256').update(m).digest('hex'));
    for (const [kernel, digests] of Object.entries(run().sha)) expect(digests, kernel).toEqual(want);
  });

  it('PoW answers equal the TS backend for every nonce length mod 64', async () => {
    expect(run().pow).toEqual(await tsPowAnswers());
  });

  it('primality verdicts equal the TS backend and node:crypto', () => {
    expect(run().verdicts).toEqual(tsVerdicts());
    for (const [i, n] of numbers().entries()) expect(run().verdicts[i]![0], String(n)).toBe(checkPrimeSync(n, { checks: 30 }));
  });

  it('a seeded safe-prime search gives x64 its primes', async () => {
    expect(run().primes).toEqual(await x64Primes());
  });
});
