// What the prebuild scripts for other targets (build-arm64, build-musl,
// build-win32) share, so a change to one of these steps reaches every target:
// give up on a missing toolchain (only a warning with `--if-possible`, used
// when packing), compile with cmake-js and a toolchain file (`--werror` in
// CI), and place the addon in prebuilds/<platform>-<arch>/ under
// node-gyp-build's naming.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const werror = process.argv.includes('--werror');

/** Ends the script when `missing` (why the toolchain is unusable) is set: exit 0 with a warning when packing, else exit 1. */
export function exitIfMissing(label, missing) {
  if (!missing) return;
  if (process.argv.includes('--if-possible')) {
    console.warn(`powprime: no ${label} prebuild: ${missing}`);
    process.exit(0);
  }
  console.error(`powprime: cannot build for ${label}: ${missing}`);
  process.exit(1);
}

/** `cmake-js compile` into `out` for `arch` with the toolchain file `cmake/<toolchain>`; exits with cmake-js's status when it fails. */
export function cmakeJsCompile(out, arch, toolchain) {
  const cmakeJs = createRequire(import.meta.url).resolve('cmake-js/bin/cmake-js');
  const args = [cmakeJs, 'compile', '--directory', root, '--out', out, '--arch', arch, `--CDCMAKE_TOOLCHAIN_FILE=${path.join(root, 'cmake', toolchain)}`];
  // CI builds every prebuild with warnings as errors, as the host build.
  if (werror) args.push('--CDPOWPRIME_WERROR=ON');
  const run = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

/** Copies the built addon to prebuilds/<platformDir>/<file>. */
export function placePrebuild(label, built, platformDir, file) {
  const dir = path.join(root, 'prebuilds', platformDir);
  mkdirSync(dir, { recursive: true });
  copyFileSync(built, path.join(dir, file));
  console.log(`powprime: ${label} addon written to prebuilds/${platformDir}/${file}`);
}
