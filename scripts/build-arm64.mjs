// Cross-compiles the addon for linux-arm64 (glibc) with the aarch64 cross
// compiler (Debian: g++-aarch64-linux-gnu) into build-arm64/, and places it in
// prebuilds/linux-arm64/ for the packed tarball. `--if-possible` (used when
// packing) only warns when the cross compiler is missing.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lenient = process.argv.includes('--if-possible');
const compiler = 'aarch64-linux-gnu-g++';

if (spawnSync(compiler, ['--version']).status !== 0) {
  const why = `${compiler} not found (Debian: apt-get install g++-aarch64-linux-gnu libc6-dev-arm64-cross)`;
  if (lenient) {
    console.warn(`powprime: no linux-arm64 prebuild: ${why}`);
    process.exit(0);
  }
  console.error(`powprime: cannot cross-build for linux-arm64: ${why}`);
  process.exit(1);
}
const cmakeJs = createRequire(import.meta.url).resolve('cmake-js/bin/cmake-js');
const out = path.join(root, 'build-arm64');
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
    'arm64',
    `--CDCMAKE_TOOLCHAIN_FILE=${path.join(root, 'cmake/aarch64-linux-gnu.cmake')}`,
    // CI builds every prebuild with warnings as errors, as the host build.
    ...(process.argv.includes('--werror') ? ['--CDPOWPRIME_WERROR=ON'] : []),
  ],
  { cwd: root, stdio: 'inherit' },
);
if (run.status !== 0) process.exit(run.status ?? 1);
const dir = path.join(root, 'prebuilds', 'linux-arm64');
mkdirSync(dir, { recursive: true });
copyFileSync(path.join(out, 'Release', 'powprime.node'), path.join(dir, 'powprime.node'));
console.log('powprime: linux-arm64 addon written to prebuilds/linux-arm64/powprime.node');
