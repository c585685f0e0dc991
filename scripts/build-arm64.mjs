// Cross-compiles the addon for linux-arm64 (glibc) with the aarch64 cross
// compiler (Debian: g++-aarch64-linux-gnu) into build-arm64/, and places it in
// prebuilds/linux-arm64/ for the packed tarball. `--if-possible` (used when
// packing) only warns when the cross compiler is missing.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { cmakeJsCompile, exitIfMissing, placePrebuild, root } from './cross-build.mjs';

const compiler = 'aarch64-linux-gnu-g++';
exitIfMissing('linux-arm64', spawnSync(compiler, ['--version']).status !== 0 && `${compiler} not found (Debian: apt-get install g++-aarch64-linux-gnu libc6-dev-arm64-cross)`);
const out = path.join(root, 'build-arm64');
cmakeJsCompile(out, 'arm64', 'aarch64-linux-gnu.cmake');
placePrebuild('linux-arm64', path.join(out, 'Release', 'powprime.node'), 'linux-arm64', 'powprime.node');
