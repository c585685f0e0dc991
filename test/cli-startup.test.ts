// What the CLI loads at start: the native addon only when a command does native
// work, and the C-library probe only when the local build did not load. A probe
// preloaded into each run (fixtures/native-load-probe.ts) reports what the
// process loaded and asked, from the CommonJS cache and, on Linux, from the
// process's memory map.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/program.ts';
import { native } from '../src/native.ts';
import { tempDir } from './helpers/tmp.ts';

const root = path.join(import.meta.dirname, '..');
const probe = path.join(root, 'test/fixtures/native-load-probe.ts');
const linux = process.platform === 'linux';

interface Probe {
  /** .node files in the main thread's CommonJS cache. */
  required: string[];
  /** powprime.node files mapped into the process (any thread), or null off Linux. */
  mapped: string[] | null;
  /** process.report.getReport() calls. */
  reports: number;
  /** Opens of the Node executable (reading its ELF interpreter). */
  execOpens: number;
}

function cliArgs(cliRoot: string, args: string[]): string[] {
  return ['--import', 'tsx', '--import', probe, path.join(cliRoot, 'src/cli/main.ts'), ...args];
}

/** Runs the CLI from `cliRoot`'s sources with the probe; the run's result and what the probe saw. */
function run(args: string[], opts: { cliRoot?: string; env?: NodeJS.ProcessEnv } = {}): { status: number | null; stdout: string; stderr: string; seen: Probe } {
  const cliRoot = opts.cliRoot ?? root;
  const out = path.join(tempDir(), 'probe.json');
  const r = spawnSync(process.execPath, cliArgs(cliRoot, args), {
    cwd: cliRoot,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, ...opts.env, POWPRIME_PROBE_OUT: out },
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, seen: JSON.parse(readFileSync(out, 'utf8')) as Probe };
}

function expectNoAddon(seen: Probe): void {
  expect(seen.required).toEqual([]);
  if (seen.mapped !== null) expect(seen.mapped).toEqual([]);
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
  it.each(helps.map((args) => [args.join(' '), args] as const))('%s', (_name, args) => {
    const r = run([...args]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: powprime/);
    expectNoAddon(r.seen);
  });

  it('solve and search on the TS backend, on pool threads: no thread loads it', () => {
    const solved = run(['solve', 'startup', '3', '--backend', 'js', '--threads', '2']);
    expect(solved.status, solved.stderr).toBe(0);
    expectNoAddon(solved.seen);
    const found = run(['search', '--bits', '64', '--count', '2', '--seed', '7', '--backend', 'js', '--threads', '2']);
    expect(found.status, found.stderr).toBe(0);
    expect(found.stdout.trim().split('\n')).toHaveLength(2);
    expectNoAddon(found.seen);
  });

  it('fake-services, run and stopped by SIGTERM', async () => {
    const out = path.join(tempDir(), 'probe.json');
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
    expectNoAddon(JSON.parse(readFileSync(out, 'utf8')) as Probe);
  });
});

describe.runIf(localLoads)('a command that does native work', () => {
  it('`backend` loads the local build, and takes no C-library probe for it', () => {
    const r = run(['backend']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backend: native\nsha256: \S+/);
    expect(r.seen.required).toEqual([localBuild]);
    if (r.seen.mapped !== null) expect(r.seen.mapped).toEqual([localBuild]);
    expect(r.seen.reports).toBe(0);
    expect(r.seen.execOpens).toBe(0);
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
    expect(r.seen.required).toEqual([]);
  });
});
