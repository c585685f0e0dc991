// Builds the native addon during `npm install`, unless the package carries a
// prebuilt addon for this platform that loads here, is of this version and
// passes its kernel self-tests (then no compiler is needed). A failed build
// (no compiler, no cmake) must not fail the install: the library then runs on
// its TypeScript backend and says why at run time. `--strict` always compiles
// and makes failure fatal (for `npm run build:native`, where the developer
// wants to know).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const strict = process.argv.includes('--strict');
// --sanitize builds an ASan/UBSan addon with the POWPRIME_VERIFY checks
// (native/verify.h) into build-sanitize/ (never build/,
// which the loader uses by default), for scripts/test-sanitize.mjs.
const sanitize = process.argv.includes('--sanitize');
// --clang builds with clang++ into build-clang/ (scripts/test-clang.mjs), so
// that the GCC build in build/ and this one are tested side by side.
const clang = process.argv.includes('--clang');
// --werror (CI): any compiler warning fails the build. Never on a user's install.
const werror = process.argv.includes('--werror');

function fail(reason) {
  if (strict) {
    console.error(`powprime: native build failed: ${reason}`);
    process.exit(1);
  }
  console.warn(`powprime: native addon not built (${reason}); the TypeScript backend will be used`);
  process.exit(0);
}

if (process.env.POWPRIME_SKIP_NATIVE === '1') fail('POWPRIME_SKIP_NATIVE=1');

/**
 * Why no prebuild for this platform can be used, or null when one can. On
 * Linux the musl build (powprime.musl.node) sits beside the glibc one; each is
 * tried, and only one whose libc matches the running Node loads.
 */
function prebuildProblem() {
  const dir = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`);
  // A git clone has no prebuilds/ at all: only the packed npm package carries them.
  if (!existsSync(path.join(root, 'prebuilds'))) return 'this copy has none: only the packed npm package carries prebuilt addons, a git clone compiles';
  const files = ['powprime.node', 'powprime.musl.node'].map((f) => path.join(dir, f)).filter((f) => existsSync(f));
  if (files.length === 0) return 'none for this platform';
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const problems = [];
  for (const file of files) {
    // In a child process: a binary for the wrong libc must not take the installer down.
    const probe = spawnSync(process.execPath, ['-e', 'const b = require(process.argv[1]); b.backendInfo(); process.stdout.write(String(b.version))', file], { encoding: 'utf8' });
    if (probe.status !== 0) problems.push(`${path.basename(file)}: ${(probe.stderr.split('\n').find((l) => /error/i.test(l)) ?? `exit code ${probe.status}`).trim()}`);
    else if (probe.stdout !== version) problems.push(`${path.basename(file)}: built for ${probe.stdout}, this is ${version}`);
    else return null;
  }
  return problems.join('; ');
}

// cmake-js is an optional peer: only a source build needs it (6 MB with its
// dependencies), and the prebuilds spare almost every install the build.
let cli = null;
try {
  cli = createRequire(import.meta.url).resolve('cmake-js/bin/cmake-js');
} catch {}
const noCmakeJs = 'a source build needs cmake-js: run `npm install cmake-js`, then `npm rebuild powprime`';

if (!strict) {
  const problem = prebuildProblem();
  if (problem === null) {
    console.log(`powprime: using the prebuilt native addon for ${process.platform}-${process.arch}`);
    process.exit(0);
  }
  // Without cmake-js, one line says both why no prebuild and why no build.
  if (!cli) fail(`no usable prebuilt addon: ${problem}; ${noCmakeJs}`);
  console.log(`powprime: no usable prebuilt addon (${problem}); compiling`);
}
if (!cli) fail(noCmakeJs);
// `compile` keeps an existing build folder's configuration; a build that sets
// options of its own configures afresh so that they really apply.
const args = [cli, clang || werror ? 'rebuild' : 'compile', '--directory', root];
if (sanitize) args.push('--out', path.join(root, 'build-sanitize'), '--CDPOWPRIME_SANITIZE=ON', '--CDPOWPRIME_VERIFY=ON');
if (clang) args.push('--out', path.join(root, 'build-clang'), '--CDCMAKE_CXX_COMPILER=clang++', '--CDCMAKE_C_COMPILER=clang');
if (werror) args.push('--CDPOWPRIME_WERROR=ON');
const run = spawnSync(process.execPath, args, {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  encoding: 'utf8',
  // GCC 12 prints about 2 MB of warnings from its own AVX-512 headers (see
  // CMakeLists.txt); past the 1 MB default the build would fail with ENOBUFS.
  maxBuffer: 256 * 1024 * 1024,
});
if (run.error) fail(run.error.message);
if (run.status !== 0) {
  const out = `${run.stdout}\n${run.stderr}`;
  const lines = out.split('\n');
  const firstError = lines.find((l) => /error:/i.test(l)) ?? lines.find((l) => /error|not found|could not/i.test(l)) ?? `exit code ${run.status}`;
  if (strict) process.stderr.write(out);
  fail(firstError.trim());
}
const where = [sanitize && 'sanitizers and POWPRIME_VERIFY, build-sanitize/', clang && 'clang, build-clang/', werror && 'warnings as errors'].filter(Boolean);
console.log(`powprime: native addon built${where.length ? ` (${where.join('; ')})` : ''}`);
