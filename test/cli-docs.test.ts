// The man page and shell completions are generated from the command definitions:
// the committed files must be what the generator gives now, and each must work
// in the program that reads it (groff, bash, zsh, fish).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate, OUTPUTS, VALUE_CHOICES, valueCompletion } from '../scripts/gen-cli-docs.ts';
import { buildProgram } from '../src/cli/program.ts';
import type { Command } from 'commander';
import { runCli, runCliSync as cli } from './helpers/cli.ts';
import { hasCommand } from './helpers/oracles.ts';

const root = join(import.meta.dirname, '..');
const committed = (rel: string): string => readFileSync(join(root, rel), 'utf8');
const files = await generate();
const program = await buildProgram();
const commandNames = program.commands.map((c) => c.name());

function everyCommand(c: Command): Command[] {
  return [c, ...c.commands.flatMap(everyCommand)];
}

/** The words after powprime that reach a command ('' for powprime itself). */
function commandPath(c: Command): string {
  const words: string[] = [];
  for (let at: Command | null = c; at?.parent; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}

/** Every option whose value is one of a fixed set, with its command's path. */
const withChoices = everyCommand(program).flatMap((c) =>
  c.options.flatMap((o) => {
    const how = valueCompletion(o);
    return typeof how === 'object' ? [{ path: commandPath(c), option: o, choices: how.choices }] : [];
  }),
);

describe('generated CLI docs', () => {
  it.each(OUTPUTS)('%s is what the command definitions give (regenerate: node --import tsx scripts/gen-cli-docs.ts)', (rel) => {
    expect(committed(rel)).toBe(files[rel]);
  });

  it('package.json installs the man page and ships the completions', () => {
    const pkg = JSON.parse(committed('package.json')) as { man: string[]; files: string[] };
    expect(pkg.man).toEqual(['./man/powprime.1']);
    expect(pkg.files).toEqual(expect.arrayContaining(['man', 'completions']));
  });

  it.runIf(hasCommand('groff', ['--version']))('the man page renders without a groff warning and names every command and option', () => {
    const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-P-cbou'], { input: committed('man/powprime.1'), encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    for (const c of commandNames) expect(r.stdout).toContain(`powprime ${c}`);
    expect(r.stdout).toContain('--outform');
    expect(r.stdout).toContain('EXIT STATUS');
  });

  const bash = (words: string[]): string[] => {
    const script = `source completions/powprime.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _powprime; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync('bash', ['--norc', '-c', script], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean);
  };

  it('bash completes commands, subcommands, options per command, and files after an option that takes one', () => {
    expect(bash(['powprime', ''])).toEqual(commandNames);
    expect(bash(['powprime', 'ch'])).toEqual(['check']);
    expect(bash(['powprime', 'check', '--s'])).toEqual(['--status', '--safe']);
    expect(bash(['powprime', 'question', 'ask', '--w'])).toEqual(['--wait']);
    expect(bash(['powprime', 'question', 'a'])).toEqual(['ask', 'answer', 'answers']);
    expect(bash(['powprime', 'dhparam', '--out', 'completions/powprime.b'])).toEqual(['completions/powprime.bash']);
  });

  it('bash completes the value of an option that takes one of a fixed set, files or directories where a path is asked for, and nothing for free values', () => {
    expect(bash(['powprime', 'dhparam', '--outform', ''])).toEqual(['PEM', 'DER']);
    expect(bash(['powprime', 'dhparam', '--inform', 'D'])).toEqual(['DER']);
    expect(bash(['powprime', 'search', '--backend', 'n'])).toEqual(['native']);
    expect(bash(['powprime', 'search', '--stream', ''])).toEqual(['1', '2']);
    expect(bash(['powprime', 'search', '--format', ''])).toEqual(['json', 'number', 'hex']);
    expect(bash(['powprime', 'bench', '--suite', 'p'])).toEqual(['pow', 'prime']);
    expect(bash(['powprime', '--progress', ''])).toEqual(['auto', 'bar', 'json', 'none']);
    expect(bash(['powprime', 'worker', '--backend', ''])).toEqual(['auto', 'native', 'js']);
    // Free values: no file names, though files match.
    expect(bash(['powprime', 'search', '--seed', 'c'])).toEqual([]);
    expect(bash(['powprime', 'solve', '--threads', ''])).toEqual([]);
    // A directory is asked for: directories only (bench/ and biome.jsonc both start with b).
    const dirs = bash(['powprime', 'question', 'ask', '--state-dir', 'b']);
    expect(dirs).toContain('bench');
    expect(dirs).not.toContain('biome.jsonc');
    expect(bash(['powprime', 'bench', '--save', 'biome.js'])).toEqual(['biome.jsonc']);
    // Every such option of every command, the whole set.
    expect(withChoices.length).toBeGreaterThanOrEqual(10);
    for (const { path, option, choices } of withChoices) {
      expect(bash(['powprime', ...path.split(' ').filter(Boolean), option.long!, '']), `${path} ${option.long}`).toEqual([...choices]);
    }
  });

  it('zsh and fish completions hold the value list of every option that takes one of a fixed set', () => {
    const zsh = files['completions/_powprime'];
    const fish = files['completions/powprime.fish'];
    expect(zsh).toContain(`:<form>:(PEM DER)'`);
    expect(zsh).toContain(`:<name>:(auto native js)'`);
    expect(zsh).toContain(`--progress) compadd -- 'auto' 'bar' 'json' 'none'; return ;;`);
    expect(fish).toContain(`-l outform -x -a 'PEM DER'`);
    expect(fish).toContain(`-l suite -x -a 'pow prime moduli all'`);
    for (const { path, option, choices } of withChoices) {
      const at = `-n '${`__powprime_at ${path}`.trim()}'`;
      expect(fish).toContain(`complete -c powprime ${at} -l ${option.long!.slice(2)} -x -a '${choices.join(' ')}'`);
      if (path) expect(zsh).toMatch(new RegExp(`'${option.long}\\[[^']*\\]:[^']*:\\(${choices.join(' ')}\\)'`));
    }
    // Values that are not files are not completed as files.
    expect(zsh).toMatch(/'--seed\[[^']*\]:<S>: '/);
    expect(fish).toMatch(/-l seed -x -d/);
  });

  it('the value lists are the ones the commands accept: each is what the command names when given a value outside it', async () => {
    // Words that make the rest of a command line valid, so that the value is what is refused.
    const rest: Record<string, string[]> = {
      solve: ['nonce', '3'],
      search: ['--bits', '64', '--count', '1'],
      dhparam: [],
      'dhparam --inform': ['--in', 'never-read.pem'],
      moduli: ['--bits', '2048', '--count', '1'],
      worker: ['--queue', 'redis://127.0.0.1:1'],
      bench: [],
    };
    const checked = withChoices.filter(({ option }) => option.argChoices === undefined);
    expect(new Set(checked.map(({ option }) => option.long))).toEqual(new Set(Object.keys(VALUE_CHOICES)));
    const runs = checked.map(async ({ path, option, choices }) => {
      const before = rest[`${path} ${option.long}`] ?? rest[path];
      expect(before, `words for ${path} (add them to rest)`).toBeDefined();
      const r = await runCli(...path.split(' '), ...before!, option.long!, '3');
      expect(r.status, r.stderr).toBe(2);
      const named = /^powprime: (\S+) must be (?:one of )?(.+) \(got "?3"?\)\n$/.exec(r.stderr);
      expect(named?.[1], r.stderr).toBe(option.long);
      expect(
        named![2]!.split(/, | or /).map((v) => v.replace(/^'(.*)'$/, '$1')),
        `${path} ${option.long}`,
      ).toEqual([...choices]);
    });
    await Promise.all(runs);
  }, 120_000);

  it.runIf(hasCommand('zsh', ['--version']))('the zsh completion parses', () => {
    expect(spawnSync('zsh', ['-n', 'completions/_powprime'], { cwd: root, encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
  });

  it.runIf(hasCommand('fish', ['--version']))('fish completes commands and options per command', () => {
    const complete = (line: string): string[] => {
      const r = spawnSync('fish', ['--no-config', '-c', `source completions/powprime.fish; complete -C '${line}'`], { cwd: root, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      return r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]!);
    };
    expect(complete('powprime ch')).toEqual(['check']);
    expect(complete('powprime check 23 --s').sort()).toEqual(['--safe', '--status']);
    expect(complete('powprime question a').sort()).toEqual(['answer', 'answers', 'ask']);
    expect(complete('powprime question ask --w')).toEqual(['--wait']);
    expect(complete('powprime dhparam --outform ').sort()).toEqual(['DER', 'PEM']);
    expect(complete('powprime search --backend n')).toEqual(['native']);
    expect(complete('powprime --progress ').sort()).toEqual(['auto', 'bar', 'json', 'none']);
    expect(complete('powprime search --seed ')).toEqual([]);
    expect(complete('powprime dhparam --out completions/powprime.b')).toEqual(['completions/powprime.bash']);
  });
});

describe('help text', () => {
  it('shows numeric defaults as numbers, and one default per option', () => {
    for (const c of everyCommand(program)) {
      const text = c.helpInformation();
      expect(text, c.name()).not.toMatch(/\(default: "\d+(\.\d+)?"\)/);
      for (const block of text.split(/\n(?= {2}-)/)) expect((block.match(/default:/g) ?? []).length, block).toBeLessThanOrEqual(1);
    }
    expect(cli('fake-services', '--help').stdout).toMatch(/--port <n>\s+port on 127\.0\.0\.1; 0 takes any free one \(default:\s+0\)/);
  });

  it("help A B shows the subcommand's help, as A B --help does; an unknown subcommand is one line", () => {
    const asked = cli('help', 'question', 'ask');
    expect(asked.status).toBe(0);
    expect(asked.stdout).toMatch(/^Usage: powprime question ask \[options\] <prompt>\n/);
    expect(asked.stdout).toBe(cli('question', 'ask', '--help').stdout);
    expect(cli('help', 'question')).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Usage: powprime question \[options\] \[command\]\n/) });
    expect(cli('help', 'question', 'nosuch')).toEqual({ status: 2, stdout: '', stderr: 'powprime: unknown command "question nosuch"; powprime help question lists its commands\n' });
    expect(cli('help', 'check', '23')).toEqual({ status: 2, stdout: '', stderr: 'powprime: unknown command "check 23"; check has no subcommands\n' });
  });

  it('the top-level help shows examples that are real commands, and the exit codes', () => {
    const r = cli('--help');
    expect(r.status).toBe(0);
    const examples = r.stdout.slice(r.stdout.indexOf('Examples:'));
    expect(examples).toMatch(/Exit codes: 0 ok, 1 failed/);
    const used = [...examples.matchAll(/^ {2}powprime ([a-z-]+)/gm)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThanOrEqual(5);
    for (const c of used) expect(commandNames).toContain(c);
  });
});
