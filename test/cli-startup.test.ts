// What the CLI loads at start: the native addon only when a command does native
// work (in the main thread and in every pool thread), and the C-library probe
// only when the local build did not load. A probe preloaded into each run and
// each of its threads (fixtures/native-load-probe.mjs) logs every addon and
// module loaded and every probe of the C library.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/program.ts';
import { native } from '../src/native.ts';
import { nodeSha256Hex } from './helpers/oracles.ts';
import { tempDir } from './helpers/tmp.ts';

const root = path.join(import.meta.dirname, '..');
const probe = path.join(root, 'test/fixtures/native-load-probe.mjs');
const linux = process.platform === 'linux';

/** What the probe saw in a run, over all its threads. */
interface Probe {
  /** Native addons loaded. */
  dlopened: string[];
  /** Loads of a native addon, counted per thread. */
  dlopens: number;
  /** process.report.getReport() calls. */
  reports: number;
  /** Opens of the Node executable (reading its ELF interpreter). */
  execOpens: number;
  /** Packages modules were loaded from. */
  packages: string[];
}

/** What only the commands that use them load: the pool, HTTP, queue mode. */
const HEAVY = ['piscina', 'undici', 'bullmq', 'ioredis'];

function readProbe(file: string): Probe {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  const modules = lines.filter((l) => l.startsWith('module ')).map((l) => decodeURIComponent(l.slice(7)));
  const packages = modules.map((f) => /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(f)?.[1]).filter((p) => p !== undefined);
  return {
    dlopened: [...new Set(lines.filter((l) => l.startsWith('dlopen ')).map((l) => l.slice(7)))],
    dlopens: lines.filter((l) => l.startsWith('dlopen ')).length,
    reports: lines.filter((l) => l === 'report').length,
    execOpens: lines.filter((l) => l === 'exec-open').length,
    packages: [...new Set(packages)].sort(),
  };
}

function cliArgs(cliRoot: string, args: string[]): string[] {
  return ['--import', 'tsx', '--import', probe, path.join(cliRoot, 'src/cli/main.ts'), ...args];
}

/** Runs the CLI from `cliRoot`'s sources with the probe; the run's result and what the probe saw. */
function run(args: string[], opts: { cliRoot?: string; env?: NodeJS.ProcessEnv } = {}): { status: number | null; stdout: string; stderr: string; seen: Probe } {
  const cliRoot = opts.cliRoot ?? root;
  const out = path.join(tempDir(), 'probe.log');
  const r = spawnSync(process.execPath, cliArgs(cliRoot, args), {
    cwd: cliRoot,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, ...opts.env, POWPRIME_PROBE_OUT: out },
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, seen: readProbe(out) };
}

function expectNoAddon(seen: Probe): void {
  expect(seen.dlopened).toEqual([]);
  expect(seen.reports).toBe(0);
  expect(seen.execOpens).toBe(0);
}

const localBuild = path.join(root, 'build/Release/powprime.node');
// The positive checks need an addon that loads here from the local build (not POWPRIME_ADDON_PATH or the TS backend).
const localLoads = native() !== null && existsSync(localBuild) && !process.env.POWPRIME_ADDON_PATH && process.env.POWPRIME_BACKEND !== 'js';

describe('commands that do no native work do not load the addon', () => {
  it('--version prints the version alone', () => {
    const r = run(['--version']);
    expect(r.status).toBe(0);
    const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    expect(r.stdout).toBe(`powprime ${version}\n`);
    expectNoAddon(r.seen);
  });

  const helps = [['help'], ['--help'], ...Object.keys(COMMANDS).map((c) => [c, '--help'])];
  it.each(helps.map((args) => [args.join(' '), args] as const))('%s (nor the pool, HTTP or queue libraries)', (_name, args) => {
    const r = run([...args]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: powprime/);
    expectNoAddon(r.seen);
    expect(r.seen.packages).toContain('commander');
    for (const p of HEAVY) expect(r.seen.packages).not.toContain(p);
  });

  it('solve and search on the TS backend, on pool threads: no thread loads it', () => {
    // Difficulty 5: past the first chunk, which the main thread searches itself.
    const solved = run(['solve', 'startup', '5', '--backend', 'js', '--threads', '2', '--json']);
    expect(solved.status, solved.stderr).toBe(0);
    expect((JSON.parse(solved.stdout) as { attempts: number }).attempts).toBeGreaterThan(20_000);
    expectNoAddon(solved.seen);
    expect(solved.seen.packages).toContain('piscina');
    const found = run(['search', '--bits', '64', '--count', '2', '--seed', '7', '--backend', 'js', '--threads', '2']);
    expect(found.status, found.stderr).toBe(0);
    expect(found.stdout.trim().split('\n')).toHaveLength(2);
    expectNoAddon(found.seen);
    expect(found.seen.packages).toContain('piscina');
  });

  it('the library: a TS-backend check on a pool thread', () => {
    const script = path.join(tempDir(), 'check.mts');
    writeFileSync(
      script,
      `import { closePool, isSafePrime } from ${JSON.stringify(path.join(root, 'src/index.ts'))};\nprocess.stdout.write(String(await isSafePrime(23n, { backend: 'js' })));\nawait closePool();\n`,
    );
    const out = path.join(tempDir(), 'probe.log');
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', probe, script], { cwd: root, encoding: 'utf8', env: { ...process.env, POWPRIME_PROBE_OUT: out } });
    expect(r.stdout, r.stderr).toBe('true');
    const seen = readProbe(out);
    expectNoAddon(seen);
    expect(seen.packages).toContain('piscina');
  });

  it('fake-services, run and stopped by SIGTERM', async () => {
    const out = path.join(tempDir(), 'probe.log');
    const child = spawn(process.execPath, cliArgs(root, ['fake-services', '--json']), {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, POWPRIME_PROBE_OUT: out },
    });
    let stdout = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('\n')) resolve();
      });
      child.on('exit', () => reject(new Error(`fake-services ended before it listened: ${stdout}`)));
    });
    expect((JSON.parse(stdout) as { url: string }).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const status = await new Promise<number | null>((resolve) => {
      child.on('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
    expect(status).toBe(143);
    expectNoAddon(readProbe(out));
  });
});

describe.runIf(localLoads)('a command that does native work', () => {
  it('`backend` loads the local build, and takes no C-library probe for it', () => {
    const r = run(['backend']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backend: native\nsha256: \S+/);
    expect(r.seen.dlopened).toEqual([localBuild]);
    expect(r.seen.reports).toBe(0);
    expect(r.seen.execOpens).toBe(0);
  });

  it('a native solve loads it in the main thread and in the pool threads that search, once each, with no C-library probe', () => {
    const r = run(['solve', 'startup', '5', '--threads', '2', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const solved = JSON.parse(r.stdout) as { solution: string; attempts: number; backend: string };
    expect(nodeSha256Hex(`startup${solved.solution}`)).toMatch(/^00000/);
    expect(solved.backend).toBe('native');
    // More candidates than the main thread's first chunk (200 000): the pool threads searched too.
    expect(solved.attempts).toBeGreaterThan(200_000);
    expect(r.seen.dlopened).toEqual([localBuild]);
    expect(r.seen.dlopens).toBeGreaterThanOrEqual(2);
    expect(r.seen.dlopens).toBeLessThanOrEqual(3);
    expect(r.seen.reports + r.seen.execOpens).toBe(0);
  });
});

describe.runIf(linux)('without a local build', () => {
  it('the loader looks for the prebuild of this C library, which takes the probe', () => {
    // A copy of the package without build/ (and, as in a git clone, without prebuilds/).
    const copy = tempDir();
    cpSync(path.join(root, 'src'), path.join(copy, 'src'), { recursive: true });
    cpSync(path.join(root, 'package.json'), path.join(copy, 'package.json'));
    symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
    const r = run(['backend'], { cliRoot: copy, env: { POWPRIME_ADDON_PATH: '', POWPRIME_BACKEND: '' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backend: js\n/m);
    expect(r.stdout).toContain(path.join(copy, 'build/Release/powprime.node: missing'));
    expect(r.stdout).toMatch(new RegExp(`${path.join(copy, 'prebuilds', `linux-${process.arch}`)}/powprime(\\.musl)?\\.node: missing`));
    expect(r.seen.execOpens + r.seen.reports).toBeGreaterThan(0);
    expect(r.seen.dlopened).toEqual([]);
  });
});
