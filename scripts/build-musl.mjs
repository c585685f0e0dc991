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
import { existsSync } from 'node:fs';
import path from 'node:path';
import { cmakeJsCompile, exitIfMissing, placePrebuild, root } from './cross-build.mjs';

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
exitIfMissing(`linux-${arch} musl`, missing);
const out = path.join(root, target.out);
cmakeJsCompile(out, arch, `${target.triple}-linux-musl.cmake`);
placePrebuild(`linux-${arch} musl`, path.join(out, 'Release', 'powprime.node'), `linux-${arch}`, 'powprime.musl.node');
