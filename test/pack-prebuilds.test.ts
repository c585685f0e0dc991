// `npm pack` (prepack) refuses a release without all five prebuilt addons, or
// with one built for another version, unless POWPRIME_PACK_PARTIAL=1 asks for
// a local pack, which still names what is missing. Run on a temporary copy of
// the package holding only the check, package.json and prebuilds/.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/tmp.ts';

const root = path.join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string; scripts: Record<string, string>; files: string[] };
const FILES = ['linux-x64/powprime.node', 'linux-x64/powprime.musl.node', 'linux-arm64/powprime.node', 'linux-arm64/powprime.musl.node', 'win32-x64/powprime.node'];

/** A copy of the package with the check and the given prebuilds, each holding its version as the addon does (a C string). */
function copy(prebuilds: Record<string, string>, version = pkg.version): string {
  const dir = tempDir('powprime-pack-');
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(path.join(root, 'scripts', 'check-prebuilds.mjs'), path.join(dir, 'scripts', 'check-prebuilds.mjs'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'powprime', version }));
  for (const [file, builtFor] of Object.entries(prebuilds)) {
    mkdirSync(path.dirname(path.join(dir, 'prebuilds', file)), { recursive: true });
    writeFileSync(path.join(dir, 'prebuilds', file), Buffer.concat([Buffer.from('\x7fELF…napi_register_module_v1\0'), Buffer.from(`${builtFor}\0`), Buffer.alloc(64)]));
  }
  return dir;
}

function check(dir: string, partial?: string) {
  const { POWPRIME_PACK_PARTIAL: _, ...env } = process.env;
  const r = spawnSync(process.execPath, [path.join(dir, 'scripts', 'check-prebuilds.mjs')], {
    cwd: dir,
    env: partial === undefined ? env : { ...env, POWPRIME_PACK_PARTIAL: partial },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout.trim().split('\n').filter(Boolean), stderr: r.stderr.trim().split('\n').filter(Boolean) };
}

const all = Object.fromEntries(FILES.map((f) => [f, pkg.version]));

describe('packing a release', () => {
  it('runs the check last in prepack, after every build that places a prebuild, and ships without it', () => {
    const steps = pkg.scripts.prepack!.split(' && ');
    expect(steps.at(-1)).toBe('node scripts/check-prebuilds.mjs');
    expect(steps.slice(0, -1)).toEqual([
      'node scripts/prebuild.mjs',
      'node scripts/build-arm64.mjs --if-possible',
      'node scripts/build-musl.mjs --if-possible',
      'node scripts/build-musl.mjs --arch arm64 --if-possible',
      'node scripts/build-win32.mjs --if-possible',
    ]);
    expect(pkg.files).toContain('!scripts/check-prebuilds.mjs');
  });

  it('passes with all five prebuilds of this version', () => {
    const r = check(copy(all));
    expect(r).toMatchObject({ status: 0, stderr: [] });
    expect(r.stdout).toEqual([`powprime: all 5 prebuilds present for ${pkg.version} (linux-x64, linux-x64 musl, linux-arm64, linux-arm64 musl, win32-x64)`]);
  });

  it('refuses with one line naming the missing prebuilds and how to build them', () => {
    const { 'linux-arm64/powprime.musl.node': _, 'win32-x64/powprime.node': __, ...some } = all;
    const r = check(copy(some));
    expect(r.status).toBe(1);
    expect(r.stdout).toEqual([]);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toBe(
      'powprime: not packing a release without 2 of 5 prebuilds: linux-arm64 musl (prebuilds/linux-arm64/powprime.musl.node: missing), win32-x64 (prebuilds/win32-x64/powprime.node: missing). ' +
        'To build: node scripts/build-musl.mjs --arch arm64; npm run build:native:win32 (the Debian packages they need: docs/install.md, A complete release), or set POWPRIME_PACK_PARTIAL=1 for a local pack without them',
    );
  });

  it('refuses with no prebuilds/ at all (a git clone where the cross builds found no toolchain)', () => {
    const r = check(copy({}));
    expect(r.status).toBe(1);
    expect(r.stderr).toHaveLength(1);
    for (const f of FILES) expect(r.stderr[0]).toContain(`prebuilds/${f}: missing`);
  });

  it('counts a prebuild left by a build of another version as missing (the loader would refuse it)', () => {
    const r = check(copy({ ...all, 'linux-x64/powprime.musl.node': '0.0.9', 'win32-x64/powprime.node': `1${pkg.version}` }));
    expect(r.status).toBe(1);
    expect(r.stderr[0]).toContain(
      `: linux-x64 musl (prebuilds/linux-x64/powprime.musl.node: not built for ${pkg.version}), win32-x64 (prebuilds/win32-x64/powprime.node: not built for ${pkg.version}). To build: node scripts/build-musl.mjs; npm run build:native:win32 (`,
    );
  });

  it('POWPRIME_PACK_PARTIAL=1 packs without them, still naming each one missing', () => {
    const { 'linux-arm64/powprime.node': _, ...some } = all;
    const dir = copy(some);
    const r = check(dir, '1');
    expect(r).toMatchObject({ status: 0, stdout: [] });
    expect(r.stderr).toEqual(['powprime: packing without 1 of 5 prebuilds (POWPRIME_PACK_PARTIAL=1): linux-arm64 (prebuilds/linux-arm64/powprime.node: missing)']);
    // Only 1 opts out.
    expect(check(dir, '0').status).toBe(1);
    expect(check(dir, '').status).toBe(1);
  });

  it.runIf(existsSync(path.join(root, 'build', 'Release', 'powprime.node')))('reads the version of a real addon without loading it', () => {
    const built = path.join(root, 'build', 'Release', 'powprime.node');
    const probe = spawnSync(process.execPath, ['-e', 'process.stdout.write(require(process.argv[1]).version)', built], { encoding: 'utf8' });
    const real = probe.stdout;
    expect(real).toMatch(/^\d+\.\d+\.\d+/);
    const dir = copy(Object.fromEntries(FILES.map((f) => [f, real])), real);
    copyFileSync(built, path.join(dir, 'prebuilds', 'linux-x64', 'powprime.node'));
    expect(check(dir).status).toBe(0);
    // The same file is refused for any other version.
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'powprime', version: `${real}1` }));
    expect(check(dir, '1').stderr.join('\n')).toContain(`linux-x64 (prebuilds/linux-x64/powprime.node: not built for ${real}1)`);
  });
});
