// Builds the addon for linux-x64 on musl (Alpine) into build-musl/, with the
// host's GCC and Debian's musl (apt-get install musl-dev; see
// cmake/x86_64-linux-musl.cmake), and places it beside the glibc prebuild as
// prebuilds/linux-x64/powprime.musl.node (node-gyp-build's naming). The same
// build makes build-musl/kernel_check, a static musl program of the kernels
// that test/musl.test.ts runs. `--if-possible` (when packing) only warns when
// the toolchain is missing.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lenient = process.argv.includes('--if-possible');

const missing =
  process.platform !== 'linux' || process.arch !== 'x64'
    ? `it is built on linux-x64, this is ${process.platform}-${process.arch}`
    : !existsSync('/usr/lib/x86_64-linux-musl/libc.a')
      ? 'musl not found (Debian: apt-get install musl-dev)'
      : spawnSync('g++', ['--version']).status !== 0
        ? 'g++ not found'
        : null;
if (missing) {
  if (lenient) {
    console.warn(`powprime: no linux-x64 musl prebuild: ${missing}`);
    process.exit(0);
  }
  console.error(`powprime: cannot build for linux-x64 musl: ${missing}`);
  process.exit(1);
}
const cmakeJs = createRequire(import.meta.url).resolve('cmake-js/bin/cmake-js');
const out = path.join(root, 'build-musl');
const run = spawnSync(
  process.execPath,
  [
    cmakeJs,
    'compile',
    '--directory',
    root,
    '--out',
    out,
    `--CDCMAKE_TOOLCHAIN_FILE=${path.join(root, 'cmake/x86_64-linux-musl.cmake')}`,
    ...(process.argv.includes('--werror') ? ['--CDPOWPRIME_WERROR=ON'] : []),
  ],
  { cwd: root, stdio: 'inherit' },
);
if (run.status !== 0) process.exit(run.status ?? 1);
const dir = path.join(root, 'prebuilds', 'linux-x64');
mkdirSync(dir, { recursive: true });
copyFileSync(path.join(out, 'Release', 'powprime.node'), path.join(dir, 'powprime.musl.node'));
console.log('powprime: linux-x64 musl addon written to prebuilds/linux-x64/powprime.musl.node');
