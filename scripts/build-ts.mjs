// Compiles src/ and bench/ into dist/ from scratch, so files that no longer
// exist in src/ are never packed, makes the CLI entry executable, and bundles
// the browser entry into dist/browser (scripts/build-browser.mjs).
import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBrowser } from './build-browser.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
chmodSync(path.join(root, 'dist/src/cli/main.js'), 0o755);
await buildBrowser(root);
