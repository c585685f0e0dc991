// Structural rules of the tree that a reader relies on (see ARCHITECTURE.md).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.ts';
import { PowprimeError } from '../src/index.ts';
import { COMMANDS } from '../src/cli/program.ts';
import { ALONE_FILES, FAST_FILES } from '../vitest.config.ts';

const root = join(import.meta.dirname, '..');

/**
 * The files of src/ over 200 lines (as `wc -l` counts), each with its
 * length. The list may only shrink: a file may not grow past its length
 * (a split lowers it), and one that comes within 200 lines leaves the list.
 */
const OVER_200: Record<string, number> = {
  'src/queue/chunk-plan.ts': 255,
  'src/clients/http/rate-limiter.ts': 248,
  'src/fake-services/question-service.ts': 272,
  'src/clients/registry/registrar.ts': 266,
  'src/clients/http/service-client.ts': 256,
  'src/clients/question/client.ts': 233,
};

/**
 * The command modules: the files program.ts loads for `powprime <name>` (its COMMANDS table, one row a
 * line), by file name, each with its command's name; every command of the table is among them.
 */
function commandModules(): Map<string, string> {
  const program = readFileSync(join(root, 'src/cli/program.ts'), 'utf8');
  const commands = new Map([...program.matchAll(/^ {2}'?([\w-]+)'?: async \(\) => \(await import\('\.\/([\w-]+\.ts)'\)\)\.register\w+,$/gm)].map((m) => [m[2]!, m[1]!]));
  expect([...commands.values()].sort()).toEqual(Object.keys(COMMANDS).sort());
  return commands;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

function errorClasses(): [string, new (...args: unknown[]) => Error][] {
  const entries = Object.entries(api) as [string, unknown][];
  return entries.filter((e): e is [string, new (...args: unknown[]) => Error] => typeof e[1] === 'function' && (e[1] as { prototype: unknown }).prototype instanceof Error);
}

describe('the error model', () => {
  const classes = errorClasses();

  it('exports a good number of error classes (so the checks below check something)', () => {
    expect(classes.length).toBeGreaterThan(20);
  });

  it.each(classes.filter(([name]) => name !== 'PowprimeError'))('%s extends PowprimeError with a stable code and its own name', (name, Cls) => {
    expect(Cls.prototype).toBeInstanceOf(PowprimeError);
    // Every constructor takes its facts positionally; dummies are enough to read the code.
    const e = new Cls('x', 0, 500, 'message', 0) as PowprimeError;
    expect(e.code).toMatch(/^ERR_[A-Z0-9_]+$/);
    expect(e.name).toBe(name);
    // Its name is a string of its own, not its constructor's name, which a page's minifier renames: a
    // subclass without a name of its own (as the class seems to a minified page) still reads it.
    expect(new (class extends Cls {})('x', 0, 500, 'message', 0).name).toBe(name);
    expect(typeof e.transient).toBe('boolean');
  });

  it('codes are unique and docs/errors.md lists every one', () => {
    const table = readFileSync(join(root, 'docs/errors.md'), 'utf8');
    const rows = classes.filter(([n]) => n !== 'PowprimeError').map(([name, C]) => ({ name, code: (new C('x', 0, 500, 'm', 0) as PowprimeError).code }));
    const codes = rows.map((r) => r.code);
    expect(new Set(codes).size).toBe(codes.length);
    // A row of the table naming the code and its class, not a mention elsewhere on the page.
    for (const { name, code } of rows) expect(table, code).toContain(`\n| \`${code}\` | \`${name}\` |`);
  });
});

describe('layout', () => {
  it('src/pool imports nothing from pow/ or prime/', () => {
    const pool = filesUnder('src/pool');
    expect(pool.length).toBeGreaterThan(1);
    for (const f of pool) expect(readFileSync(join(root, f), 'utf8'), f).not.toMatch(/from '\.\.\/(pow|prime)\//);
  });

  it('pow/ and prime/ import nothing from each other: what both need (the TS SHA-256) lives in src/hash', () => {
    for (const [dir, other] of [
      ['src/pow', 'prime'],
      ['src/prime', 'pow'],
    ] as const) {
      const files = filesUnder(dir);
      expect(files.length).toBeGreaterThan(3);
      for (const f of files) expect(readFileSync(join(root, f), 'utf8'), f).not.toMatch(new RegExp(`from '\\.\\./${other}/`));
    }
    // Both do use it from there, so the rule above is not met by each keeping its own copy.
    for (const f of ['src/pow/kernel.ts', 'src/prime/stream.ts']) expect(readFileSync(join(root, f), 'utf8'), f).toMatch(/from '\.\.\/hash\/sha256\.ts'/);
  });

  it('the fake services take their limits and constants from the specs, not from the clients they test', () => {
    const fakes = filesUnder('src/fake-services');
    expect(fakes.length).toBeGreaterThan(3);
    for (const f of fakes) {
      const text = readFileSync(join(root, f), 'utf8');
      // Only the clock and the registry's published algorithms (base85, TOTP, key encryption) are shared.
      for (const m of text.matchAll(/from '\.\.\/clients\/([^']+)'/g)) {
        expect(['clock.ts', 'registry/base85.ts', 'registry/totp.ts', 'registry/key-crypto.ts'], `${f} imports clients/${m[1]}`).toContain(m[1]);
      }
    }
  });

  it("every client call names a route of its service's table (method and path come from there)", () => {
    for (const f of filesUnder('src/clients').filter((x) => x.endsWith('client.ts'))) {
      const text = readFileSync(join(root, f), 'utf8');
      expect(text, f).not.toMatch(/this\.call\(\{[^}]*\b(method|path):/);
      // Nor does it name one in its errors by hand: labels come from the table too (routeLabel).
      expect(text, f).not.toMatch(/['`](GET|POST) \//);
    }
  });

  it('src/clients is grouped by service, with few top-level files', () => {
    const top = readdirSync(join(root, 'src/clients'), { withFileTypes: true });
    expect(top.filter((d) => d.isFile()).length).toBeLessThanOrEqual(4);
    expect(
      top
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort(),
    ).toEqual(['ads', 'http', 'question', 'registry']);
  });

  it('the CLI entry imports no command and no bench code at start-up, directly or through what it imports', () => {
    // Every file main.ts loads before a command is chosen: its static value imports (not `import type`,
    // not import()), followed file by file, over as many lines as an import spans.
    const staticImportsOf = (file: string): string[] =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'/gm)].map((m) => relative(root, resolve(root, dirname(file), m[1]!)));
    const loaded = new Set([join('src', 'cli', 'main.ts')]);
    for (const file of loaded) for (const next of staticImportsOf(file)) loaded.add(next);
    expect(loaded.size).toBeGreaterThan(3);
    const commands = new Set([...commandModules().keys()].map((f) => join('src', 'cli', f)));
    for (const file of loaded) {
      expect(file, 'main.ts loads bench code at start-up').not.toMatch(/bench/);
      expect(commands.has(file), `main.ts loads the command module ${file} at start-up`).toBe(false);
    }
  });

  it('the pool and HTTP libraries load with import() where they are used, not with every module that mentions them', () => {
    // (The optional peers have the same rule in cli-install.test.ts.) `import type` is erased; a value
    // import of piscina or undici would load it for every command and every library user.
    const files = filesUnder('src');
    expect(files.length).toBeGreaterThan(50);
    for (const f of files) expect(readFileSync(join(root, f), 'utf8'), f).not.toMatch(/^import (?!type )[^;]*from '(piscina|undici)'/m);
  });

  it('a command module reaches no other command module: what two commands share lives in a neutral module of src/cli', () => {
    const commands = commandModules();
    // What a file of src/cli imports from src/cli: static, type-only and import() alike.
    const importsOf = (file: string): string[] => [...readFileSync(join(root, 'src/cli', file), 'utf8').matchAll(/(?:from |import\()'\.\/([\w-]+\.ts)'/g)].map((m) => m[1]!);
    for (const [command, name] of commands) {
      // Through its helpers too: a helper that imports another command brings that command along all the same.
      const reached = new Set([command]);
      for (const file of reached) for (const next of importsOf(file)) reached.add(next);
      expect(
        [...reached].filter((f) => f !== command && commands.has(f)),
        `powprime ${name} (src/cli/${command})`,
      ).toEqual([]);
    }
  });

  it('pow/ and prime/ take the progress-and-abort wiring from run-lifecycle.ts, written once', () => {
    const kernels = [...filesUnder('src/pow'), ...filesUnder('src/prime')];
    for (const f of kernels) {
      const text = readFileSync(join(root, f), 'utf8');
      // A timer or an abort listener of their own would be a second copy of the lifecycle.
      expect(text, f).not.toMatch(/\bsetInterval\(|\b(add|remove)EventListener\(\s*'abort'|\bPROGRESS_MS\s*=|\.aborted\b/);
    }
    // The long calls use it (so the rule above is not met by wiring nothing at all).
    for (const f of ['src/pow/solve.ts', 'src/prime/scheduler.ts', 'src/prime/range-search.ts']) {
      expect(readFileSync(join(root, f), 'utf8'), f).toMatch(/^import \{[^}]*\bRunLifecycle\b[^}]*\} from '\.\.\/run-lifecycle\.ts';$/m);
    }
  });

  it('run-lifecycle.ts is neutral: it imports nothing from pow/, prime/, pool/ or the CLI', () => {
    const text = readFileSync(join(root, 'src/run-lifecycle.ts'), 'utf8');
    expect(text).toMatch(/^export class RunLifecycle\b/m);
    expect(text).not.toMatch(/from '\.\/(pow|prime|pool|cli)\//);
  });

  it('every file in src/ stays within 200 lines, but those listed, which may only shrink', () => {
    // Lines as `wc -l` and an editor count them: the newline that ends the last line opens no other.
    const length = (f: string): number => readFileSync(join(root, f), 'utf8').replace(/\n$/, '').split('\n').length;
    const files = filesUnder('src');
    expect(files.length).toBeGreaterThan(100);
    for (const f of files) expect(length(f), `${f} is over ${OVER_200[f] ?? 200} lines: split it by job`).toBeLessThanOrEqual(OVER_200[f] ?? 200);
    for (const f of Object.keys(OVER_200)) {
      expect(files, `${f} is gone: take it off OVER_200`).toContain(f);
      expect(length(f), `${f} is within 200 lines now: take it off OVER_200`).toBeGreaterThan(200);
    }
  });

  it('no rejection is silenced on the quiet: src/ignored-rejection.ts holds the helpers that name why', () => {
    const files = filesUnder('src').filter((f) => f !== join('src', 'ignored-rejection.ts'));
    expect(files.length).toBeGreaterThan(50);
    for (const f of files) expect(readFileSync(join(root, f), 'utf8'), f).not.toMatch(/\.catch\(\s*\(\s*\w*\s*\)\s*=>\s*(\{\s*\}|undefined|void 0|null)\s*\)/);
  });

  it("no 'error' event is silenced on the quiet either: ignoreErrorEvents names why", () => {
    const files = [...filesUnder('src'), ...filesUnder('bench')].filter((f) => f !== join('src', 'ignored-rejection.ts'));
    expect(files.length).toBeGreaterThan(50);
    for (const f of files) expect(readFileSync(join(root, f), 'utf8'), f).not.toMatch(/\.(on|once)\(\s*['"]error['"]\s*,\s*\(\s*\w*\s*\)\s*=>\s*(\{\s*\}|undefined|void 0|null)\s*\)/);
  });

  it('only files under native/napi/ include napi.h', () => {
    const native = readdirSync(join(root, 'native'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.(cc|h)$/.test(f));
    const napi = native.filter((f) => /#include\s+[<"]napi\.h[>"]/.test(readFileSync(join(root, 'native', f), 'utf8')));
    // The bindings do include it (so the rule is not met by an empty list).
    expect(napi).toContain(join('napi', 'init.cc'));
    expect(napi.filter((f) => !f.startsWith(`napi${sep}`))).toEqual([]);
  });

  it("no file under src/ mentions introspect (the addon's test-only exports), but for the binding's type declaring it", () => {
    const mentions = filesUnder('src').flatMap((f) => [...readFileSync(join(root, f), 'utf8').matchAll(/^.*\bintrospect\b.*$/gm)].map((m) => `${f}: ${m[0].trim()}`));
    expect(mentions).toEqual([`${join('src', 'native-binding.ts')}: introspect: NativeIntrospect;`]);
  });

  it('native/ has no include cycle, a file and its header counted as one unit (x.cc with x.h)', () => {
    const files = readdirSync(join(root, 'native'), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(cc|h|c|inc)$/.test(f))
      .map((f) => f.split('\\').join('/'));
    const unit = (f: string): string => f.replace(/\.[^./]+$/, '');
    // A quoted include names a file beside the includer, else one under native/ (the include path).
    const resolve = (from: string, inc: string): string | undefined => {
      const beside = join(from, '..', inc).split('\\').join('/');
      return [beside, inc].find((f) => files.includes(f));
    };
    const deps = new Map<string, Set<string>>();
    for (const f of files) {
      const edges = deps.get(unit(f)) ?? new Set<string>();
      deps.set(unit(f), edges);
      for (const m of readFileSync(join(root, 'native', f), 'utf8').matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
        const to = resolve(f, m[1]!);
        if (to && unit(to) !== unit(f)) edges.add(unit(to));
      }
    }
    expect([...deps.values()].reduce((n, e) => n + e.size, 0)).toBeGreaterThan(50);
    // Depth-first: a unit reached again while still on the path closes a cycle.
    const done = new Set<string>();
    const path: string[] = [];
    const cycles: string[] = [];
    const visit = (u: string): void => {
      if (path.includes(u)) cycles.push([...path.slice(path.indexOf(u)), u].join(' -> '));
      if (path.includes(u) || done.has(u)) return;
      path.push(u);
      for (const v of deps.get(u) ?? []) visit(v);
      path.pop();
      done.add(u);
    };
    for (const u of deps.keys()) visit(u);
    expect(cycles).toEqual([]);
  });
});

describe('the test projects', () => {
  it('the fast and slow-alone projects name only test files that exist, each in one project; processes stay out of the fast one', () => {
    const all = readdirSync(join(root, 'test'))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `test/${f}`);
    const named = [...FAST_FILES, ...ALONE_FILES];
    expect(named.filter((f) => !all.includes(f))).toEqual([]);
    expect(new Set(named).size).toBe(named.length);
    // Processes, Redis, emulation and browsers stay out of the edit loop.
    for (const slow of ['test/queue.test.ts', 'test/arm64.test.ts', 'test/win32.test.ts', 'test/musl.test.ts', 'test/browser.test.ts', 'test/cli-signals.test.ts'])
      expect(FAST_FILES).not.toContain(slow);
  });
});
