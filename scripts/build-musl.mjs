// Builds the addon for Linux on musl (Alpine) and places it beside the glibc
// prebuild as prebuilds/linux-<arch>/powprime.musl.node (node-gyp-build's
// naming). x64 (the default) with the host's GCC and Debian's musl (musl-dev)
// into build-musl/; `--arch arm64` with Debian's aarch64 cross compiler and
// Debian's arm64 musl (musl-dev:arm64 through multiarch) into
// build-musl-arm64/. See cmake/musl/toolchain.cmake. Each build also makes
// kernel_check, a static musl program of the kernels that test/musl.test.ts
// runs (the arm64 one under qemu-aarch64). `--if-possible` (when packing) only
// warns when the toolchain is missing.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lenient = process.argv.includes('--if-possible');
const arch = process.argv.includes('--arch') ? process.argv[process.argv.indexOf('--arch') + 1] : 'x64';
const targets = {
  x64: {
    triple: 'x86_64',
    compiler: 'g++',
    out: 'build-musl',
    packages: 'apt-get install musl-dev',
  },
  arm64: {
    triple: 'aarch64',
    compiler: 'aarch64-linux-gnu-g++',
    out: 'build-musl-arm64',
    packages: 'dpkg --add-architecture arm64, apt-get update, apt-get install g++-aarch64-linux-gnu musl-dev:arm64',
  },
};
const target = targets[arch];
if (!target) {
  console.error(`powprime: --arch must be x64 or arm64, not ${arch}`);
  process.exit(2);
}

const missing =
  process.platform !== 'linux' || process.arch !== 'x64'
    ? `it is built on linux-x64, this is ${process.platform}-${process.arch}`
    : !existsSync(`/usr/lib/${target.triple}-linux-musl/libc.a`)
      ? `musl for ${target.triple} not found (Debian: ${target.packages})`
      : spawnSync(target.compiler, ['--version']).status !== 0
        ? `${target.compiler} not found (Debian: ${target.packages})`
        : null;
if (missing) {
  if (lenient) {
    console.warn(`powprime: no linux-${arch} musl prebuild: ${missing}`);
    process.exit(0);
  }
  console.error(`powprime: cannot build for linux-${arch} musl: ${missing}`);
  process.exit(1);
}
const cmakeJs = createRequire(import.meta.url).resolve('cmake-js/bin/cmake-js');
const out = path.join(root, target.out);
const run = spawnSync(
  process.execPath,
  [
    cmakeJs,
    'compile',
    '--directory',
    root,
    '--out',
    out,
    '--arch',
    arch,
    `--CDCMAKE_TOOLCHAIN_FILE=${path.join(root, `cmake/${target.triple}-linux-musl.cmake`)}`,
    ...(process.argv.includes('--werror') ? ['--CDPOWPRIME_WERROR=ON'] : []),
  ],
  { cwd: root, stdio: 'inherit' },
);
if (run.status !== 0) process.exit(run.status ?? 1);
const dir = path.join(root, 'prebuilds', `linux-${arch}`);
mkdirSync(dir, { recursive: true });
copyFileSync(path.join(out, 'Release', 'powprime.node'), path.join(dir, 'powprime.musl.node'));
console.log(`powprime: linux-${arch} musl addon written to prebuilds/linux-${arch}/powprime.musl.node`);
