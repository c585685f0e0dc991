// The linux-x64 musl build (node scripts/build-musl.mjs). No musl Node runs
// here, so the addon file is checked for what it needs of the system (musl's
// libc and Node-API, nothing else), and its kernels, compiled by the same
// toolchain into the static musl program build-musl/kernel_check, are fed the
// arm64 suite's vectors: SHA-256 of 301 message lengths against node:crypto,
// PoW answers against the TS backend (and node:crypto) for every nonce length
// mod 64 with every searcher this CPU runs, primality verdicts against the TS
// backend and node:crypto. Skipped, saying why, without the build;
// POWPRIME_REQUIRE_MUSL=1 (CI) requires it.
import { spawnSync } from 'node:child_process';
import { checkPrimeSync, createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isProbablePrimeSync, isSafePrimeSync } from '../src/index.ts';
import { searchRangeJs } from '../src/pow/kernel.ts';
import { PowTarget } from '../src/pow/target.ts';
import { messages, nonces, numbers } from './arm64/inputs.mjs';

const root = path.join(import.meta.dirname, '..');
const addon = path.join(root, 'prebuilds', 'linux-x64', 'powprime.musl.node');
const checker = path.join(root, 'build-musl', 'kernel_check');
const muslLibc = '/usr/lib/x86_64-linux-musl/libc.so';
const missing = [
  !existsSync(addon) && 'prebuilds/linux-x64/powprime.musl.node (node scripts/build-musl.mjs)',
  !existsSync(checker) && 'build-musl/kernel_check (node scripts/build-musl.mjs)',
  !existsSync(muslLibc) && 'musl (Debian: musl-dev)',
  spawnSync('readelf', ['--version']).status !== 0 && 'readelf (binutils)',
].filter(Boolean);
if (missing.length && process.env.POWPRIME_REQUIRE_MUSL === '1') throw new Error(`musl check required but missing: ${missing.join(', ')}`);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'powprime-musl-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function tool(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

const needed = (file: string) => [...tool('readelf', ['-d', '-W', file]).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);

/** The kernel program's answer to each line, in order. */
function ask(lines: string[]): string[] {
  const r = spawnSync(checker, { input: `${lines.join('\n')}\n`, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 300_000 });
  if (r.status !== 0) throw new Error(`kernel_check exited with ${r.status ?? r.signal}: ${r.stderr}`);
  const out = r.stdout.trimEnd().split('\n');
  expect(out).toHaveLength(lines.length);
  return out;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex') || '-';

describe.skipIf(missing.length > 0)(`linux-x64 musl build${missing.length ? ` (skipped: missing ${missing.join(', ')})` : ''}`, () => {
  it('the addon is an x86-64 shared object needing only what musl-gcc’s own programs need', () => {
    const header = tool('readelf', ['-h', addon]);
    expect(header).toMatch(/Class:\s+ELF64/);
    expect(header).toMatch(/Type:\s+DYN/);
    expect(header).toMatch(/Machine:\s+Advanced Micro Devices X86-64/);
    // The oracle: a C program linked by Debian's musl-gcc wrapper.
    const source = path.join(tmp, 'hello.c');
    const exe = path.join(tmp, 'hello');
    writeFileSync(source, 'int main(void) { return 0; }\n');
    if (spawnSync('musl-gcc', ['-o', exe, source]).status === 0) expect(needed(addon)).toEqual(needed(exe));
    expect(needed(addon)).toEqual(['libc.so']);
    // No glibc symbol versions anywhere (a glibc library would leave GLIBC_2.x needs).
    expect(tool('readelf', ['-V', '-W', addon])).not.toMatch(/GLIBC/);
  });

  it('every symbol it takes from outside is exported by musl’s libc or is Node-API', () => {
    const exported = new Set(
      tool('nm', ['-D', '--defined-only', muslLibc])
        .split('\n')
        .map((l) => l.trim().split(/\s+/)[2])
        .filter(Boolean),
    );
    const undefinedSymbols = tool('nm', ['-D', '--undefined-only', addon])
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f.length === 2);
    const strong = undefinedSymbols.filter(([type]) => type === 'U').map(([, name]) => name!);
    const api = strong.filter((s) => /^(napi|node_api)_/.test(s));
    expect(api).toContain('napi_create_function');
    const foreign = strong.filter((s) => !/^(napi|node_api)_/.test(s) && !exported.has(s));
    expect(foreign).toEqual([]);
    // Weak references resolve at load when musl has the name (pthread_once for
    // the unwinder's locks); only transactional-memory hooks (GCC's libitm,
    // absent on Alpine too) and __cxa_pure_virtual may stay null.
    const weak = undefinedSymbols.filter(([type]) => type === 'w').map(([, name]) => name!);
    expect(weak).toContain('pthread_once');
    expect(weak.filter((s) => !exported.has(s) && !/^_ITM_|^_ZGTt|^__cxa_pure_virtual$/.test(s))).toEqual([]);
    // It carries its C++ runtime: nothing of libstdc++ or libgcc_s is left to find.
    expect(strong.filter((s) => /^_Z|^__cxa_(throw|begin_catch)|^_Unwind/.test(s))).toEqual([]);
  });

  it('the kernel program is a static executable (no interpreter, no libraries) and unwinds C++ exceptions', () => {
    expect(tool('readelf', ['-l', '-W', checker])).not.toMatch(/program interpreter/);
    expect(needed(checker)).toEqual([]);
    expect(ask(['throw'])).toEqual(['caught']);
  });

  it('every SHA-256 hasher it runs here agrees with node:crypto on 301 message lengths', () => {
    const [hashers] = ask(['hashers']);
    const ids = hashers!.split(' ');
    expect(ids).toContain('scalar');
    const want = messages().map((m) => createHash('sha256').update(m).digest('hex'));
    for (const id of ids) expect(ask(messages().map((m) => `sha ${id} ${hex(m)}`)), id).toEqual(want);
  });

  it('every PoW searcher it runs here answers as the TS backend for every nonce length mod 64', () => {
    const [searchers] = ask(['searchers']);
    const ids = searchers!.split(' ');
    expect(ids).toContain('scalar');
    const lines: string[] = [];
    const want: string[] = [];
    for (const nonce of nonces()) {
      const target = new PowTarget(nonce, 2);
      // The first window's start, and a range inside the next window (or
      // further into the first when the layout has only one).
      const second = target.windowSize * 2n <= target.layout.limit ? target.windowSize + 17n : 12_345n;
      for (const [k0, k1] of [
        [0n, 5000n],
        [second, second + 5000n],
      ] as const) {
        const w = target.window(k0);
        const found = searchRangeJs(target, k0, k1);
        if (found !== null) expect(createHash('sha256').update(target.message(found)).digest('hex').slice(0, 2)).toBe('00');
        const job = [
          Array.from(w.mid, (x) => x.toString(16)).join(','),
          hex(w.block),
          target.layout.digitsEnd,
          target.layout.digitsInBlock,
          target.difficulty,
          k0,
          k1,
        ].join(' ');
        for (const id of ids) {
          lines.push(`pow ${id} ${job}`);
          want.push(found === null ? '-1' : found.toString());
        }
      }
    }
    expect(ask(lines)).toEqual(want);
  });

  it('primality verdicts equal the TS backend and node:crypto', () => {
    const ns = numbers();
    const answers = ask(ns.map((n) => `prime ${n.toString(16)} -1`));
    ns.forEach((n, i) => {
      expect(answers[i], String(n)).toBe(isProbablePrimeSync(n, { backend: 'js' }) ? '1' : '0');
      expect(answers[i], String(n)).toBe(checkPrimeSync(n, { checks: 30 }) ? '1' : '0');
    });
    const big = ns.filter((n) => n >= 5n);
    const safe = ask(big.map((n) => `safe ${n.toString(16)} -1`));
    expect(safe).toEqual(big.map((n) => (isSafePrimeSync(n, { backend: 'js' }) ? '1' : '0')));
    expect(safe.filter((s) => s === '1').length).toBeGreaterThan(5);
  });
});
