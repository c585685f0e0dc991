// Which prebuild the loader picks on Linux: glibc or musl, told from the
// running Node's ELF interpreter. Checked on real executables — this Node, a
// dynamic and a static musl program built here with Debian's musl-gcc, the
// arm64 Node when present — against readelf's reading of the same files.
// The musl programs are skipped, saying why, without musl-gcc; CI (POWPRIME_REQUIRE_MUSL=1) refuses that.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { elfInterpreter } from '../src/elf-interpreter.ts';
import { ARM64_NODE_PATH } from '../scripts/arm64-node.mjs';
import { prebuildFile, runningLibc } from '../src/native.ts';

const root = path.join(import.meta.dirname, '..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'powprime-libc-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** readelf's account of the interpreter, or null when it lists none. */
function readelfInterpreter(file: string): string | null {
  const out = spawnSync('readelf', ['-l', '-W', file], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`readelf failed on ${file}: ${out.stderr}`);
  return /Requesting program interpreter: ([^\]]+)\]/.exec(out.stdout)?.[1] ?? null;
}

const hasReadelf = spawnSync('readelf', ['--version']).status === 0;
const hasMusl = spawnSync('musl-gcc', ['--version']).status === 0 || spawnSync('musl-gcc', ['-v']).status === 0;
if (!hasMusl && process.env.POWPRIME_REQUIRE_MUSL === '1') throw new Error('musl-gcc is required (POWPRIME_REQUIRE_MUSL=1; Debian: musl-tools)');
const hasArmNode = existsSync(ARM64_NODE_PATH);
// CI fetches the arm64 Node before the suite: there a missing one is a failure, not a skip.
if (!hasArmNode && process.env.POWPRIME_REQUIRE_ARM64 === '1') throw new Error('the arm64 Node is required (POWPRIME_REQUIRE_ARM64=1): node scripts/arm64-node.mjs');

describe.skipIf(!hasReadelf || process.platform !== 'linux')('the running Node and other ELF files', () => {
  it('reads this Node’s interpreter as readelf does, and calls it glibc as the process report does', () => {
    const interpreter = elfInterpreter(process.execPath);
    expect(interpreter).toBe(readelfInterpreter(process.execPath));
    const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
    expect(runningLibc()).toBe(report.header.glibcVersionRuntime ? 'glibc' : 'musl');
  });

  // This suite's Node is a glibc build wherever CI runs it; under musl the musl suites below speak.
  it.skipIf(runningLibc() !== 'glibc')(`picks powprime.node under glibc, in node-gyp-build’s folder${runningLibc() === 'glibc' ? '' : ' (skipped: this Node runs on musl)'}`, () => {
    expect(prebuildFile()).toBe(path.join(root, 'prebuilds', `linux-${process.arch}`, 'powprime.node'));
  });

  it.skipIf(!hasArmNode)(`reads an arm64 executable too${hasArmNode ? '' : ' (skipped: no arm64 Node; node scripts/arm64-node.mjs fetches it)'}`, () => {
    const armNode = ARM64_NODE_PATH;
    expect(elfInterpreter(armNode)).toBe(readelfInterpreter(armNode));
    expect(elfInterpreter(armNode)).toMatch(/ld-linux-aarch64/);
    expect(runningLibc(armNode)).toBe('glibc');
  });

  it('refuses a file that is no ELF', () => {
    const file = path.join(tmp, 'not-elf');
    writeFileSync(file, '#!/bin/sh\necho hi\n');
    expect(() => elfInterpreter(file)).toThrow(/not an ELF file/);
  });
});

describe.skipIf(!hasReadelf || !hasMusl)(`musl executables${hasMusl ? '' : ' (skipped: no musl-gcc; Debian: musl-tools)'}`, () => {
  const source = path.join(tmp, 'hello.c');
  const build = (out: string, ...flags: string[]) => {
    writeFileSync(source, '#include <stdio.h>\nint main(void) { puts("musl says hi"); return 0; }\n');
    const cc = spawnSync('musl-gcc', [...flags, '-o', out, source], { encoding: 'utf8' });
    expect(cc.status, cc.stderr).toBe(0);
    // It runs: a real musl program, not just a file with a name in it.
    expect(spawnSync(out, { encoding: 'utf8' }).stdout).toBe('musl says hi\n');
  };

  it('calls a dynamically linked musl program musl', () => {
    const exe = path.join(tmp, 'hello-dynamic');
    build(exe);
    const interpreter = elfInterpreter(exe);
    expect(interpreter).toBe(readelfInterpreter(exe));
    expect(interpreter).toMatch(/\/ld-musl-x86_64\.so\.1$/);
    expect(runningLibc(exe)).toBe('musl');
  });

  it('finds no interpreter in a static program and then goes by the process report', () => {
    const exe = path.join(tmp, 'hello-static');
    build(exe, '-static');
    expect(readelfInterpreter(exe)).toBeNull();
    expect(elfInterpreter(exe)).toBeNull();
    const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
    expect(runningLibc(exe)).toBe(report.header.glibcVersionRuntime ? 'glibc' : 'musl');
  });
});
