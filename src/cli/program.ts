/**
 * The `powprime` command tree: its commands (each loaded on demand), the
 * top-level help and the help's conventions. main.ts runs it; the man page
 * and the shell completions are generated from it (scripts/gen-cli-docs.ts),
 * so neither can drift from what the commands accept.
 */
import { Command, Option } from 'commander';
import { PROGRESS_CHOICES, setOutputMode } from './progress-mode.ts';

type Register = (program: Command) => void;

export const COMMANDS: Record<string, () => Promise<Register>> = {
  solve: async () => (await import('./solve.ts')).registerSolve,
  check: async () => (await import('./check.ts')).registerCheck,
  search: async () => (await import('./search.ts')).registerSearch,
  dhparam: async () => (await import('./dhparam.ts')).registerDhparam,
  moduli: async () => (await import('./moduli.ts')).registerModuli,
  worker: async () => (await import('./worker.ts')).registerWorker,
  queue: async () => (await import('./queue.ts')).registerQueue,
  merge: async () => (await import('./merge.ts')).registerMerge,
  question: async () => (await import('./question.ts')).registerQuestion,
  registry: async () => (await import('./registry.ts')).registerRegistry,
  ads: async () => (await import('./ads.ts')).registerAds,
  bench: async () => (await import('./bench.ts')).registerBench,
  'fake-services': async () => (await import('./fake-services.ts')).registerFakeServices,
  backend: async () => (await import('./backend.ts')).registerBackend,
};

/** Help of -V, --version: the version alone, fast; which backend and kernels run needs the addon loaded (`powprime backend`). */
export const VERSION_HELP = 'print the version (`powprime backend` says which backend and kernels run)';

export const DESCRIPTION = 'proof of work and safe primes, on a native core with a TypeScript fallback';

export const EXAMPLES = `
Examples:
  powprime bench --quick
      how fast this machine is, against OpenSSL and node:crypto (about a minute)
  powprime solve powprime-example 6
      a proof of work: digits S with SHA-256(nonce‖S) starting 000000
  powprime check 23 0x17 91          (or: echo 23 | powprime check)
      prime? safe prime?
  powprime search --bits 1024 --count 10 --out primes.jsonl
      ten 1024-bit safe primes; the same command again resumes
  powprime dhparam --out dhparam.pem
      2048-bit Diffie-Hellman parameters, like openssl dhparam
  powprime moduli --bits 3072,4096 --count 8 --out moduli
      Diffie-Hellman groups for sshd's moduli file; the same command resumes
  powprime fake-services
      local stand-ins for the question, registry and ad services

Each command has its own help: powprime help COMMAND [SUBCOMMAND].
Exit codes: 0 ok, 1 failed or found nothing, 2 bad usage or input,
130 interrupted (Ctrl-C; another signal: 128 + its number, 143 for SIGTERM).
`;

/**
 * The program with the named commands registered (all of them by default),
 * help conventions applied. `configure` runs before the commands are added:
 * commander copies settings such as exitOverride to subcommands as they are made.
 */
export async function buildProgram(names: readonly string[] = Object.keys(COMMANDS), configure?: (program: Command) => void): Promise<Command> {
  const program = new Command();
  program
    .name('powprime')
    .description(DESCRIPTION)
    .option('-q, --quiet', 'no progress and no informational lines on stderr (errors still print one line)')
    .addOption(
      new Option('--progress <mode>', 'progress of long commands: a bar on a terminal, one JSON object per tick on stderr (json), or none; auto: the bar on a terminal, nothing when piped')
        .choices(PROGRESS_CHOICES)
        .default('auto'),
    )
    .addHelpText('after', EXAMPLES);
  // Global options may come before or after the command name; they are read once, before any command runs.
  program.hook('preAction', (root) => setOutputMode(root.opts<{ quiet?: boolean; progress?: string }>()));
  configure?.(program);
  for (const name of names) (await COMMANDS[name]!())(program);
  numbersAsNumbers(program);
  return program;
}

/**
 * Commander shows a default by JSON.stringify, so the string '1' reads
 * `(default: "1")`. Options take their values as text (parsed strictly by the
 * command), so their defaults are strings: a numeric one is shown bare.
 */
function numbersAsNumbers(cmd: Command): void {
  for (const o of cmd.options) {
    if (typeof o.defaultValue === 'string' && o.defaultValueDescription === undefined && /^\d+(\.\d+)?$/.test(o.defaultValue)) {
      o.defaultValueDescription = o.defaultValue;
    }
  }
  for (const a of cmd.registeredArguments) {
    if (typeof a.defaultValue === 'string' && a.defaultValueDescription === undefined && /^\d+$/.test(a.defaultValue)) a.defaultValueDescription = a.defaultValue;
  }
  for (const sub of cmd.commands) numbersAsNumbers(sub);
}
