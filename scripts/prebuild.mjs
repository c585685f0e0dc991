// Runs when the package is packed: builds the addon and places it in
// prebuilds/<platform>-<arch>/ (node-gyp-build's naming), where the loader and
// the install script look for it, so that users without a compiler get the
// native backend. Prebuilds made for other platforms (a cross build) are kept.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const build = spawnSync(process.execPath, [path.join(root, 'scripts/build-native.mjs'), '--strict'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const dir = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`);
mkdirSync(dir, { recursive: true });
copyFileSync(path.join(root, 'build/Release/powprime.node'), path.join(dir, 'powprime.node'));
console.log(`powprime: prebuild written to ${path.relative(root, dir)}/powprime.node`);
