// The install script where no prebuild fits and cmake-js is absent (an
// optional peer): the install must succeed, say in one line why there is no
// native addon and how to get one, and leave the TypeScript backend in use.
// Run on a copy of the package's install files in a temporary folder, where
// no node_modules above can provide cmake-js.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

const root = path.join(import.meta.dirname, '..');
const pkg = mkdtempSync(path.join(os.tmpdir(), 'powprime-install-'));
afterAll(() => rmSync(pkg, { recursive: true, force: true }));
mkdirSync(path.join(pkg, 'scripts'));
copyFileSync(path.join(root, 'scripts', 'build-native.mjs'), path.join(pkg, 'scripts', 'build-native.mjs'));
copyFileSync(path.join(root, 'package.json'), path.join(pkg, 'package.json'));
// Prebuilds for other platforms only, as the packed package has on a platform it has none for.
mkdirSync(path.join(pkg, 'prebuilds', 'sunos-sparc'), { recursive: true });

it('without a prebuild for this platform or cmake-js, the install passes with one line saying why and what to install', () => {
  const { POWPRIME_SKIP_NATIVE: _, ...env } = process.env;
  const r = spawnSync(process.execPath, [path.join(pkg, 'scripts', 'build-native.mjs')], { cwd: pkg, env, encoding: 'utf8' });
  expect(r.status).toBe(0);
  const lines = `${r.stdout}${r.stderr}`.trim().split('\n');
  expect(lines).toEqual([
    'powprime: native addon not built (no usable prebuilt addon: none for this platform; a source build needs cmake-js: run `npm install cmake-js`, then `npm rebuild powprime`); the TypeScript backend will be used',
  ]);
});
