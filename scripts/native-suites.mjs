// The native-facing test suites, and how to run them against one addon file
// (POWPRIME_ADDON_PATH) with one Node executable: shared by the sanitizer run,
// the clang build's run and the runs on other Node versions.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Chosen to cover every binding and kernel within about ten minutes on two
// cores at -O1 with sanitizers (see docs/sanitizers.md).
export const nativeSuites = [
  'test/native-hardening.test.ts',
  'test/widest-prime.test.ts',
  'test/native-tables.test.ts',
  'test/sha256.test.ts',
  'test/bignum-kernels.test.ts',
  'test/pow-api.test.ts',
  'test/prime-differential.test.ts',
  'test/prime-vectors.test.ts',
  'test/search-stop.test.ts',
  'test/sieve-differential.test.ts',
  'test/sieve-roots.test.ts',
  'test/sieve-derived.test.ts',
  'test/fermat-batch.test.ts',
];

// On other Node versions only the binding layer can differ (the kernels are
// the same machine code whichever Node loads them): the suites that call every
// binding with good and bad arguments, a pool of workers and a stop, in about
// twenty seconds instead of three minutes (widest-prime's one long proof is a
// kernel check, left to the runs above).
export const bindingSuites = ['test/native-hardening.test.ts', 'test/native-tables.test.ts', 'test/sha256.test.ts', 'test/pow-api.test.ts', 'test/search-stop.test.ts', 'test/sieve-roots.test.ts'];

export function die(msg) {
  console.error(`powprime: ${msg}`);
  process.exit(1);
}

/**
 * Fails unless `addon` loads in `node` with `env` and is of this version: the
 * suites skip their native tests when the addon does not load, so a clean run
 * is only worth something after this.
 */
export function requireLoads(node, env, what) {
  const probe = spawnSync(node, ['-e', 'const b = require(process.env.POWPRIME_ADDON_PATH); b.backendInfo(); process.stdout.write(b.version)'], {
    env,
    encoding: 'utf8',
  });
  if (probe.status !== 0) die(`${what} does not load: ${(probe.stderr || '').trim().split('\n')[0]}`);
}

/**
 * Runs the suites (nativeSuites unless given) with vitest under `node`, echoing their output; `onText`
 * sees every chunk (a marker may straddle two, so it gets the tail of the last
 * one too). Resolves with the exit code, or a signal name.
 */
export function runSuites(node, env, onText = () => {}, suites = nativeSuites) {
  const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const child = spawn(node, [vitest, 'run', ...suites], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    let tail = '';
    from.on('data', (chunk) => {
      const text = tail + chunk.toString();
      onText(text);
      tail = text.slice(-64);
      to.write(chunk);
    });
  }
  return new Promise((resolve) => child.on('close', (code, signal) => resolve(signal ?? code)));
}
