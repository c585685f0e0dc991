// `npm run test:clang`: builds the addon with clang++ (warnings as errors) into
// build-clang/ and runs the native-facing suites against it, so that the
// source build is known to work with clang as well as GCC (macOS users build
// from source with Xcode's clang).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { die, requireLoads, root, runSuites } from './native-suites.mjs';

const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-native.mjs'), '--strict', '--clang', '--werror'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) die('clang build failed');
const addon = path.join(root, 'build-clang', 'Release', 'powprime.node');
if (!existsSync(addon)) die(`clang build left no ${path.relative(root, addon)}`);
// The file must really be clang's: the compiler signs its objects' .comment section.
const comment = spawnSync('readelf', ['-p', '.comment', addon], { encoding: 'utf8' }).stdout ?? '';
if (!/clang version/.test(comment)) die(`${path.relative(root, addon)} carries no clang signature`);

const env = { ...process.env, POWPRIME_ADDON_PATH: addon };
requireLoads(process.execPath, env, 'the clang build');
const result = await runSuites(process.execPath, env);
if (result !== 0) die(`tests failed against the clang build (${typeof result === 'string' ? result : `exit code ${result}`})`);
console.log('powprime: clang build passes the native suites');
