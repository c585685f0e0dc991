// `npm run test:sanitize`: builds the addon with AddressSanitizer and
// UndefinedBehaviorSanitizer into build-sanitize/ and runs the native-facing
// test suites against it. Fails on a failed test and on any sanitizer report,
// even one printed by a child process the test runner survived.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Chosen to cover every binding and kernel within about ten minutes on two
// cores at -O1 with sanitizers (see README, "Sanitizers").
const suites = [
  'test/native-hardening.test.ts',
  'test/native-tables.test.ts',
  'test/sha256.test.ts',
  'test/bignum-kernels.test.ts',
  'test/pow-api.test.ts',
  'test/prime-differential.test.ts',
  'test/prime-vectors.test.ts',
  'test/search-stop.test.ts',
  'test/sieve-differential.test.ts',
  'test/fermat-batch.test.ts',
];

function die(msg) {
  console.error(`powprime: ${msg}`);
  process.exit(1);
}

const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-native.mjs'), '--strict', '--sanitize'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) die('sanitizer build failed');
const addon = path.join(root, 'build-sanitize', 'Release', 'powprime.node');
if (!existsSync(addon)) die(`sanitizer build left no ${path.relative(root, addon)}`);

// Node itself is not built with ASan, so the runtime must be loaded first;
// LD_PRELOAD is inherited by every process the test runner starts.
const compiler = process.env.CXX ?? 'g++';
const asan = spawnSync(compiler, ['-print-file-name=libasan.so'], { encoding: 'utf8' }).stdout?.trim();
if (!asan || !path.isAbsolute(asan) || !existsSync(asan)) die(`${compiler} does not know where libasan.so is`);

const env = {
  ...process.env,
  POWPRIME_ADDON_PATH: addon,
  LD_PRELOAD: asan,
  // Node's own allocations are not freed at exit; only the addon is under test.
  ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1',
  UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
};
// The suites skip their native tests when the addon does not load, so make
// sure this one does before trusting a clean run.
const probe = spawnSync(process.execPath, ['-e', 'process.stdout.write(require(process.env.POWPRIME_ADDON_PATH).version)'], {
  env,
  encoding: 'utf8',
});
if (probe.status !== 0) die(`the sanitizer build does not load: ${(probe.stderr || '').trim().split('\n')[0]}`);

const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const child = spawn(process.execPath, [vitest, 'run', ...suites], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
const reports = /ERROR: AddressSanitizer|runtime error:|ERROR: UndefinedBehaviorSanitizer/;
let sawReport = false;
for (const [from, to] of [
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
]) {
  let tail = ''; // a marker may straddle two chunks
  from.on('data', (chunk) => {
    const text = tail + chunk.toString();
    if (reports.test(text)) sawReport = true;
    tail = text.slice(-64);
    to.write(chunk);
  });
}
child.on('close', (code, signal) => {
  if (sawReport) die('a sanitizer reported an error (see above)');
  if (code !== 0) die(`tests failed under sanitizers (${signal ?? `exit code ${code}`})`);
  console.log('powprime: sanitizer run clean');
});
