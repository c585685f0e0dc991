// native/wide_arith.h's MSVC branch (_umul128, _addcarry_u64, _BitScanForward
// and the rest), which no build here uses, against its GCC/clang branch
// (unsigned __int128 and builtins, what every build here uses): clang
// compiles the first in MSVC mode, MinGW-w64 the second and links both into
// one Windows program, which Wine runs over 200,000 words. Skipped, saying
// why, without clang, MinGW-w64 or Wine; POWPRIME_REQUIRE_WIN32=1 (CI)
// requires it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

const root = path.join(import.meta.dirname, '..');
const src = path.join(root, 'test', 'wide-arith');
const has = (cmd: string, args = ['--version']) => spawnSync(cmd, args).status === 0;
const missing = [
  !has('clang++') && 'clang++ (Debian: clang)',
  !has('x86_64-w64-mingw32-g++-posix') && 'x86_64-w64-mingw32-g++-posix (Debian: g++-mingw-w64-x86-64-posix)',
  !has('wine') && 'wine (Debian: wine64)',
].filter(Boolean);
if (missing.length && process.env.POWPRIME_REQUIRE_WIN32 === '1') throw new Error(`wide_arith MSVC check required but missing: ${missing.join(', ')}`);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'powprime-wide-arith-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: env ?? process.env, timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr}`);
  return r.stdout;
}

it.skipIf(missing.length > 0)(`the MSVC branch computes what the GCC branch does${missing.length ? ` (skipped: missing ${missing.join(', ')})` : ''}`, () => {
  // No MSVC headers exist here: the branch needs only <cstdint>, given as the C header.
  const std = path.join(tmp, 'std');
  mkdirSync(std);
  writeFileSync(path.join(std, 'cstdint'), '#include <stdint.h>\n');
  const obj = path.join(tmp, 'msvc_branch.obj');
  run('clang++', [
    '--target=x86_64-pc-windows-msvc',
    '-ffreestanding',
    '-fms-extensions',
    '-fms-compatibility',
    '-std=c++17',
    '-O2',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-Wno-builtin-macro-redefined',
    '-isystem',
    std,
    '-I',
    path.join(root, 'native'),
    '-c',
    path.join(src, 'msvc_branch.cc'),
    '-o',
    obj,
  ]);
  const exe = path.join(tmp, 'wide_arith_check.exe');
  run('x86_64-w64-mingw32-g++-posix', [
    '-std=c++17',
    '-O2',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-static',
    '-I',
    path.join(root, 'native'),
    path.join(src, 'main.cc'),
    path.join(src, 'gcc_branch.cc'),
    obj,
    '-o',
    exe,
  ]);
  // Wine makes its prefix on first use, but not the folder above it.
  const prefix = path.join(root, '.cache', 'wine-prefix');
  mkdirSync(path.dirname(prefix), { recursive: true });
  const out = run('wine', [exe], { ...process.env, WINEDEBUG: '-all', WINEPREFIX: prefix });
  const [msvc, gcc] = out.trim().split(/\s+/);
  expect(gcc).toMatch(/^[0-9a-f]{16}$/);
  expect(msvc).toBe(gcc);
});
