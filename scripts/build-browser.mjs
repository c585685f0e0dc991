// Builds the browser entry (src/browser) into dist/browser, after tsc has
// written its types to dist/src/browser (scripts/build-ts.mjs runs both):
//   - powprime.js: one ES module (the `browser` export condition) with the
//     search worker's script inside it as a string, started from a Blob URL.
//     Every bundler (esbuild, Vite, webpack, Rollup, Parcel) takes a plain
//     module with no worker file to find, copy or rename; a
//     `new URL('./worker.js', import.meta.url)` worker would need each
//     bundler's own support, which esbuild lacks. The price is a CSP note
//     (worker-src blob:), hence the second file:
//   - powprime-worker.js: the same worker script as a file (export
//     `powprime/browser-worker.js`), for sites that serve it themselves and
//     pass its URL as `workerUrl`.
// `--out DIR` writes DIR/dist/browser instead (the browser test builds a
// package copy of its own, so it never touches the dist/ others use).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const common = { bundle: true, platform: 'browser', target: 'es2022', write: false, legalComments: 'none', logLevel: 'warning' };

/** Builds both files under `outRoot`/dist/browser; returns their paths. */
export async function buildBrowser(outRoot = root) {
  const out = path.join(outRoot, 'dist', 'browser');
  // The worker is minified: it is shipped as an opaque string anyway.
  const worker = await esbuild.build({ ...common, entryPoints: [path.join(root, 'src/browser/worker.ts')], format: 'iife', minify: true });
  const workerCode = worker.outputFiles[0].text;
  const workerSource = {
    name: 'worker-source',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]browser[\\/]worker-source\.ts$/ }, () => ({ contents: `export const WORKER_SOURCE = ${JSON.stringify(workerCode)};`, loader: 'js' }));
    },
  };
  // No keepNames: its wrapper calls at the top level would keep every export in a page's bundle.
  // Errors carry their names as strings (src/errors.ts), which a page's minifier leaves intact.
  const entry = await esbuild.build({ ...common, entryPoints: [path.join(root, 'src/browser/index.ts')], format: 'esm', plugins: [workerSource] });
  mkdirSync(out, { recursive: true });
  const files = { module: path.join(out, 'powprime.js'), worker: path.join(out, 'powprime-worker.js') };
  writeFileSync(files.module, entry.outputFiles[0].text);
  writeFileSync(files.worker, workerCode);
  return files;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--out');
  await buildBrowser(at > 0 ? path.resolve(process.argv[at + 1]) : root);
}
