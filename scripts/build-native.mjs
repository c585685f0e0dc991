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
const run = spawnSync(process.execPath, [cli, 'compile', '--directory', root], {
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
console.log('powprime: native addon built');
