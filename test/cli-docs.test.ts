// The man page and shell completions are generated from the command definitions:
// the committed files must be what the generator gives now, and each must work
// in the program that reads it (groff, bash, zsh, fish).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate, OUTPUTS } from '../scripts/gen-cli-docs.ts';
import { buildProgram } from '../src/cli/program.ts';
import type { Command } from 'commander';
import { runCliSync as cli } from './helpers/cli.ts';
import { hasCommand } from './helpers/oracles.ts';

const root = join(import.meta.dirname, '..');
const committed = (rel: string): string => readFileSync(join(root, rel), 'utf8');
const files = await generate();
const program = await buildProgram();
const commandNames = program.commands.map((c) => c.name());

function everyCommand(c: Command): Command[] {
  return [c, ...c.commands.flatMap(everyCommand)];
}

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
