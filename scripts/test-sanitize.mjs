// `npm run test:sanitize`: builds the addon with AddressSanitizer and
// UndefinedBehaviorSanitizer into build-sanitize/ and runs the native-facing
// test suites against it. Fails on a failed test and on any sanitizer report,
// even one printed by a child process the test runner survived.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { die, requireLoads, root, runSuites } from './native-suites.mjs';

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
requireLoads(process.execPath, env, 'the sanitizer build');

const reports = /ERROR: AddressSanitizer|runtime error:|ERROR: UndefinedBehaviorSanitizer/;
let sawReport = false;
const result = await runSuites(process.execPath, env, (text) => {
  if (reports.test(text)) sawReport = true;
});
if (sawReport) die('a sanitizer reported an error (see above)');
if (result !== 0) die(`tests failed under sanitizers (${typeof result === 'string' ? result : `exit code ${result}`})`);
console.log('powprime: sanitizer run clean');
