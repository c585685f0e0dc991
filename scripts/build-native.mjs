// Builds the native addon during `npm install`. A failed build (no compiler,
// no cmake) must not fail the install: the library then runs on its
// TypeScript backend and says why at run time. `--strict` makes failure fatal
// (for `npm run build:native`, where the developer wants to know).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const strict = process.argv.includes('--strict');
// --sanitize builds an ASan/UBSan addon into build-sanitize/ (never build/,
// which the loader uses by default), for scripts/test-sanitize.mjs.
const sanitize = process.argv.includes('--sanitize');

function fail(reason) {
  if (strict) {
    console.error(`powprime: native build failed: ${reason}`);
    process.exit(1);
  }
  console.warn(`powprime: native addon not built (${reason}); the TypeScript backend will be used`);
  process.exit(0);
}

if (process.env.POWPRIME_SKIP_NATIVE === '1') fail('POWPRIME_SKIP_NATIVE=1');

let cli;
try {
  cli = createRequire(import.meta.url).resolve('cmake-js/bin/cmake-js');
} catch {
  fail('cmake-js is not installed');
}
const args = [cli, 'compile', '--directory', root];
if (sanitize) args.push('--out', path.join(root, 'build-sanitize'), '--CDPOWPRIME_SANITIZE=ON');
const run = spawnSync(process.execPath, args, {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  encoding: 'utf8',
});
if (run.error) fail(run.error.message);
if (run.status !== 0) {
  const out = `${run.stdout}\n${run.stderr}`;
  const firstError = out.split('\n').find((l) => /error|not found|could not/i.test(l)) ?? `exit code ${run.status}`;
  if (strict) process.stderr.write(out);
  fail(firstError.trim());
}
console.log(`powprime: native addon built${sanitize ? ' (sanitizers, build-sanitize/)' : ''}`);
