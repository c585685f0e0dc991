// A default install leaves out the queue's and the HTML report's libraries
// (optional peer dependencies): nothing else may need them, and the CLI names
// what to install when a command does. (The install's size and the commands
// in it are checked on the packed tarball by scripts/consumer-check.sh.)
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingPieceMessage } from '../src/cli/optional-deps.ts';
import { tempDir } from './helpers/tmp.ts';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
};
const OPTIONAL = ['bullmq', 'ioredis', 'vega', 'vega-lite'];

describe('the default install', () => {
  it('has the queue and report libraries as optional peers (and for development), not as dependencies', () => {
    for (const name of OPTIONAL) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.peerDependencies[name], name).toBe(pkg.devDependencies[name]);
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
    }
  });

  it('no runtime file imports them at load: only as types, or by import() where used', () => {
    const files = [...readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).map((f) => join('src', f)), ...readdirSync(join(root, 'bench')).map((f) => join('bench', f))];
    const statics = files
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(join(root, f), 'utf8').matchAll(/^import (?!type )[^;]*? from '([^']+)'/gm)].map((m) => [f, m[1]!] as const))
      .filter(([, spec]) => OPTIONAL.some((o) => spec === o || spec.startsWith(`${o}/`)));
    expect(statics).toEqual([]);
  });

  it.each([
    ['bullmq', /^queue mode \(search --queue, moduli --queue, worker, queue\) needs bullmq and ioredis, which a default install leaves out: npm install bullmq ioredis$/],
    ['ioredis', /npm install bullmq ioredis$/],
    ['vega-lite', /^bench --report needs vega and vega-lite, which a default install leaves out: npm install vega vega-lite$/],
  ])('a real failed import of %s gets the one-line advice', async (name, advice) => {
    // Node's own error for the import, from a folder outside this tree where no node_modules has the package.
    const dir = tempDir('powprime-missing-');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', `import(${JSON.stringify(name)}).then(() => {}, (e) => console.log(JSON.stringify({ code: e.code, message: e.message })))`], {
      cwd: dir,
      encoding: 'utf8',
    });
    const err = Object.assign(new Error(), JSON.parse(r.stdout) as object);
    expect(err).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' });
    expect(missingPieceMessage(err)).toMatch(advice);
  });

  it('other errors, and other missing packages, get no advice', async () => {
    expect(missingPieceMessage(new Error("Cannot find package 'bullmq'"))).toBeNull();
    expect(missingPieceMessage(Object.assign(new Error("Cannot find package 'left-pad' imported from x"), { code: 'ERR_MODULE_NOT_FOUND' }))).toBeNull();
    expect(missingPieceMessage(null)).toBeNull();
  });
});
