// The linux-x64 and linux-arm64 musl builds (node scripts/build-musl.mjs
// [--arch arm64]). No musl Node runs here, so each addon file is checked for
// what it needs of the system (musl's libc and Node-API, nothing else), and
// its kernels, compiled by the same toolchain into a static musl program
// (build-musl/kernel_check, build-musl-arm64/kernel_check, the latter run
// under qemu-aarch64), are fed the arm64 suite's vectors: SHA-256 of 301
// message lengths against node:crypto, PoW answers against the TS backend
// (and node:crypto) for every nonce length mod 64 with every searcher the
// (emulated) CPU runs, primality verdicts against the TS backend and
// node:crypto. Each is skipped, saying why, without its build;
// POWPRIME_REQUIRE_MUSL=1 (CI) requires both.
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
const readelf = spawnSync('readelf', ['--version']).status === 0;
const qemu = spawnSync('qemu-aarch64', ['--version']).status === 0;

/** The two musl builds: x64 runs its kernel program natively, arm64 under qemu-aarch64. */
const targets = [
  { arch: 'x64', triple: 'x86_64', machine: /Machine:\s+Advanced Micro Devices X86-64/, out: 'build-musl', build: 'node scripts/build-musl.mjs', runner: [] as string[] },
  { arch: 'arm64', triple: 'aarch64', machine: /Machine:\s+AArch64/, out: 'build-musl-arm64', build: 'node scripts/build-musl.mjs --arch arm64', runner: ['qemu-aarch64'] },
].map((t) => {
  const addon = path.join(root, 'prebuilds', `linux-${t.arch}`, 'powprime.musl.node');
  const checker = path.join(root, t.out, 'kernel_check');
  const muslLibc = `/usr/lib/${t.triple}-linux-musl/libc.so`;
  const missing = [
    !existsSync(addon) && `prebuilds/linux-${t.arch}/powprime.musl.node (${t.build})`,
    !existsSync(checker) && `${t.out}/kernel_check (${t.build})`,
    !existsSync(muslLibc) && `musl for ${t.triple} (Debian: musl-dev${t.arch === 'x64' ? '' : ':arm64'})`,
    spawnSync(`${t.triple}-linux-musl-gcc`, ['--version']).status !== 0 && `${t.triple}-linux-musl-gcc (Debian: musl-dev${t.arch === 'x64' ? '' : ':arm64'})`,
    !readelf && 'readelf (binutils)',
    t.runner.length > 0 && !qemu && 'qemu-aarch64 (Debian: qemu-user)',
  ].filter(Boolean);
  if (missing.length && process.env.POWPRIME_REQUIRE_MUSL === '1') throw new Error(`linux-${t.arch} musl check required but missing: ${missing.join(', ')}`);
  return { ...t, addon, checker, muslLibc, missing };
});

const tmp = mkdtempSync(path.join(os.tmpdir(), 'powprime-musl-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function tool(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

const needed = (file: string) => [...tool('readelf', ['-d', '-W', file]).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);

/** The kernel program's answer to each line, in order. */
function ask(t: (typeof targets)[number], lines: string[]): string[] {
  const [cmd, ...args] = [...t.runner, t.checker];
  const r = spawnSync(cmd!, args, { input: `${lines.join('\n')}\n`, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 600_000 });
  if (r.status !== 0) throw new Error(`kernel_check exited with ${r.status ?? r.signal}: ${r.stderr}`);
  const out = r.stdout.trimEnd().split('\n');
  expect(out).toHaveLength(lines.length);
  return out;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex') || '-';

describe.each(targets)('linux-$arch musl build', (t) => {
  const { addon, checker, muslLibc, missing } = t;
  const skipped = missing.length > 0;
  if (skipped) it.skip(`skipped: missing ${missing.join(', ')}`, () => {});
  it.skipIf(skipped)('the addon is a shared object for its machine needing only what musl-gcc’s own programs need', () => {
    const header = tool('readelf', ['-h', addon]);
    expect(header).toMatch(/Class:\s+ELF64/);
    expect(header).toMatch(/Type:\s+DYN/);
    expect(header).toMatch(t.machine);
    // The oracle: a C program linked by Debian's musl-gcc wrapper for that machine.
    const source = path.join(tmp, `hello-${t.arch}.c`);
    const exe = path.join(tmp, `hello-${t.arch}`);
    writeFileSync(source, 'int main(void) { return 0; }\n');
    if (spawnSync(`${t.triple}-linux-musl-gcc`, ['-o', exe, source]).status === 0) expect(needed(addon)).toEqual(needed(exe));
    expect(needed(addon)).toEqual(['libc.so']);
    // No glibc symbol versions anywhere (a glibc library would leave GLIBC_2.x needs).
    expect(tool('readelf', ['-V', '-W', addon])).not.toMatch(/GLIBC/);
  });

  it.skipIf(skipped)('every symbol it takes from outside is exported by musl’s libc or is Node-API', () => {
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

  it.skipIf(skipped)('musl’s own dynamic loader loads it and runs its start-up code (Node-API names left unbound)', () => {
    // A C program of Debian's musl-gcc wrapper dlopens the addon; RTLD_LAZY
    // leaves the Node-API names, which only Node defines, unbound until
    // called, while everything the start-up code calls must bind (a name
    // musl's libc.so does not export crashes it or fails the load).
    const source = path.join(tmp, `load-${t.arch}.c`);
    const exe = path.join(tmp, `load-${t.arch}`);
    writeFileSync(
      source,
      [
        '#include <dlfcn.h>',
        '#include <stdio.h>',
        'int main(int argc, char** argv) {',
        '  void* h = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);',
        '  if (!h) { printf("%s\\n", dlerror()); return 1; }',
        '  printf("%s\\n", dlsym(h, "napi_register_module_v1") ? "loaded" : "no module entry");',
        '  return 0;',
        '}',
      ].join('\n'),
    );
    tool(`${t.triple}-linux-musl-gcc`, ['-o', exe, source]);
    const [cmd, ...args] = [...t.runner, exe, addon];
    const r = spawnSync(cmd!, args, { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toBe('loaded\n');
  });

  it.skipIf(skipped)('the kernel program is a static executable (no interpreter, no libraries) and unwinds C++ exceptions', () => {
    expect(tool('readelf', ['-l', '-W', checker])).not.toMatch(/program interpreter/);
    expect(needed(checker)).toEqual([]);
    expect(ask(t, ['throw'])).toEqual(['caught']);
  });

  it.skipIf(skipped)('every SHA-256 hasher it runs here agrees with node:crypto on 301 message lengths', () => {
    const [hashers] = ask(t, ['hashers']);
    const ids = hashers!.split(' ');
    expect(ids).toContain('scalar');
    // qemu-aarch64 emulates the ARMv8 SHA-2 instructions, so that kernel runs too.
    if (t.arch === 'arm64') expect(ids).toContain('armv8-sha2');
    const want = messages().map((m) => createHash('sha256').update(m).digest('hex'));
    for (const id of ids)
      expect(
        ask(
          t,
          messages().map((m) => `sha ${id} ${hex(m)}`),
        ),
        id,
      ).toEqual(want);
  });

  it.skipIf(skipped)('every PoW searcher it runs here answers as the TS backend for every nonce length mod 64', () => {
    const [searchers] = ask(t, ['searchers']);
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
        const job = [Array.from(w.mid, (x) => x.toString(16)).join(','), hex(w.block), target.layout.digitsEnd, target.layout.digitsInBlock, target.difficulty, k0, k1].join(' ');
        for (const id of ids) {
          lines.push(`pow ${id} ${job}`);
          want.push(found === null ? '-1' : found.toString());
        }
      }
    }
    expect(ask(t, lines)).toEqual(want);
  });

  it.skipIf(skipped)('primality verdicts equal the TS backend and node:crypto', () => {
    const ns = numbers();
    const answers = ask(
      t,
      ns.map((n) => `prime ${n.toString(16)} -1`),
    );
    ns.forEach((n, i) => {
      expect(answers[i], String(n)).toBe(isProbablePrimeSync(n, { backend: 'js' }) ? '1' : '0');
      expect(answers[i], String(n)).toBe(checkPrimeSync(n, { checks: 30 }) ? '1' : '0');
    });
    const big = ns.filter((n) => n >= 5n);
    const safe = ask(
      t,
      big.map((n) => `safe ${n.toString(16)} -1`),
    );
    expect(safe).toEqual(big.map((n) => (isSafePrimeSync(n, { backend: 'js' }) ? '1' : '0')));
    expect(safe.filter((s) => s === '1').length).toBeGreaterThan(5);
  });
});
