#!/usr/bin/env node
/**
 * The `powprime` command. Only the module of the command being run is loaded
 * (all of them for --help or an unknown command, none for --version), so
 * start-up stays light; the native addon loads only when a command first
 * does native work (native.ts). A default install lacks the optional peers
 * of queue mode and bench --report: those commands name what to install
 * (optional-deps.ts), the others run.
 */
import { CommanderError, type Command } from 'commander';
import { InterruptedError, PowprimeError } from '../errors.ts';
import { packageVersion } from '../package-root.ts';
import { flagNamed } from './args.ts';
import { missingPieceMessage } from './optional-deps.ts';
import { buildProgram, COMMANDS, VERSION_HELP } from './program.ts';
import { exitCodeForSignal, installInterruptHandlers, interruptedBy, leaveAtSignal, leaveProcess, markSettled, reportInterrupted, stopsCleanly } from './interrupt.ts';
import { terminalLine } from './terminal-text.ts';
import { fromOpenSslSpellings } from './openssl-spellings.ts';
import { checkRequiredAfterUnknown, oneLineUsageError } from './usage-errors.ts';

/**
 * Commands that watch the interrupt signal and wind down by themselves
 * (finish or drop the line being written, release locks, hand queue chunks
 * back, show a posted question's id). The others hold nothing to tidy and
 * leave at the signal.
 */
const STOP_BY_THEMSELVES = new Set(['solve', 'search', 'dhparam', 'moduli', 'worker', 'question', 'registry', 'ads', 'fake-services']);
/** Of the others, those whose main thread runs long synchronous work and writes no file but at the very end: they leave from the signal handler itself. */
const LEAVE_FROM_HANDLER = new Set(['check', 'bench']);

/** Error codes that mean the input was unusable (exit 2) rather than that the work failed (exit 1). */
const BAD_INPUT_CODES = new Set(['ERR_BACKEND_UNAVAILABLE', 'ERR_NOT_SAFE_PRIME']);

/** The one exit-code convention: 0 ok, 1 failed or found nothing, 2 bad usage or input, 128 + signal interrupted (130 for Ctrl-C). */
function exitCodeFor(err: unknown): number {
  if (err instanceof InterruptedError) return exitCodeForSignal(err.signal);
  if (err instanceof TypeError || err instanceof RangeError || isUnusablePath(err)) return 2;
  if (err instanceof PowprimeError) return BAD_INPUT_CODES.has(err.code) ? 2 : 1;
  return 1;
}

/** Node's warnings (no native addon, an unknown environment value) as one line in the CLI's form. */
function warningsAsOneLine(): void {
  process.removeAllListeners('warning');
  process.on('warning', (w) => process.stderr.write(`powprime: warning: ${w.message}\n`));
}

/** A file-system error on a path the user gave (--out, --state-dir, --prompts …): bad input, not a failed run. */
function isUnusablePath(err: unknown): err is NodeJS.ErrnoException {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && typeof (err as NodeJS.ErrnoException).syscall === 'string' && PATH_ERRORS.has(code);
}
const PATH_ERRORS = new Map([
  ['ENOENT', 'no such file or directory'],
  ['ENOTDIR', 'a part of the path is not a directory'],
  ['EISDIR', 'it is a directory'],
  ['EACCES', 'permission denied'],
  ['EPERM', 'operation not permitted'],
  ['EROFS', 'read-only file system'],
  ['ENAMETOOLONG', 'name too long'],
  ['EEXIST', 'a file is in the way'],
  ['ELOOP', 'too many symbolic links'],
]);

/**
 * Standard output going wrong under a command that writes to it: Node would
 * crash with a stack trace. A reader that went away (EPIPE: `| head -3`) had
 * what it wanted, so the command ends quietly; any other failure (ENOSPC when
 * redirected to a full disk, EIO) is one line and exit 1, since what was
 * printed is incomplete.
 */
function watchStandardOutput(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') leaveProcess(0);
    try {
      process.stderr.write(`powprime: cannot write to standard output: ${err.code ?? err.message}; what was printed is incomplete\n`);
    } catch {
      // stderr is gone too: the exit code still says it.
    }
    leaveProcess(1);
  });
}

/** The command path asked about by `help A B …`: its words up to the first flag (none for `help` alone, and `help help` is commander's). */
function helpTopic(after: readonly string[]): string[] {
  const end = after.findIndex((a) => a.startsWith('-'));
  const words = end === -1 ? [...after] : after.slice(0, end);
  return words[0] === 'help' ? [] : words;
}

/** For `help A B` with no subcommand B of A (commander would show A's help): the one line that names it; undefined when every word is a subcommand. */
function unknownSubcommand(program: Command, topic: readonly string[]): string | undefined {
  let cmd = program;
  for (const [i, word] of topic.entries()) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub === undefined) {
      const parent = topic.slice(0, i).join(' ');
      const asked = terminalLine(JSON.stringify(topic.slice(0, i + 1).join(' ')));
      return `unknown command ${asked}; ${cmd.commands.length ? `powprime help ${parent} lists its commands` : `${parent} has no subcommands`}`;
    }
    cmd = sub;
  }
  return undefined;
}

async function main(): Promise<void> {
  installInterruptHandlers();
  watchStandardOutput();
  warningsAsOneLine();
  const given = process.argv.slice(2);
  const at = given.findIndex((a) => !a.startsWith('-'));
  const topic = given[at] === 'help' ? helpTopic(given.slice(at + 1)) : [];
  // `help nosuch`: the same one line as `nosuch`, not every command's usage.
  if (topic.length && !Object.hasOwn(COMMANDS, topic[0]!)) {
    process.exitCode = 2;
    process.stderr.write(`powprime: unknown command ${terminalLine(JSON.stringify(topic[0]))}; powprime --help lists the commands\n`);
    return markSettled();
  }
  // `help A B …` is `A B … --help`, at any depth: commander's help command reads only its first word.
  const args = topic.length ? [...given.slice(0, at), ...given.slice(at + 1), '--help'] : given;
  const named = args.find((a) => !a.startsWith('-'));
  const known = named !== undefined && Object.hasOwn(COMMANDS, named);
  let argv: string[];
  try {
    argv = [...process.argv.slice(0, 2), ...fromOpenSslSpellings(named, args)];
  } catch (err) {
    process.exitCode = 2;
    process.stderr.write(`powprime: ${(err as Error).message}\n`);
    return markSettled();
  }
  const versionOnly = named === undefined && args.some((a) => a === '-V' || a === '--version');
  let running: Command | undefined;
  const program = await buildProgram(known ? [named] : versionOnly ? [] : undefined, (p) =>
    p
      .hook('preAction', (_root, action) => void (running = action))
      .version(`powprime ${packageVersion()}`, '-V, --version', VERSION_HELP)
      .exitOverride()
      .configureOutput({
        writeErr: (s) => process.stderr.write(s),
        // commander's own usage errors follow the same one-line form as ours.
        outputError: (s, write) => write(`powprime: ${oneLineUsageError(s)}`),
      }),
  );
  const unknownTopic = unknownSubcommand(program, topic);
  if (unknownTopic !== undefined) {
    process.exitCode = 2;
    process.stderr.write(`powprime: ${unknownTopic}\n`);
    return markSettled();
  }
  checkRequiredAfterUnknown(program);
  // When the action starts, not before: `check --help` needs no addon.
  if (known && LEAVE_FROM_HANDLER.has(named)) program.hook('preAction', leaveAtSignal);
  try {
    await (named !== undefined && STOP_BY_THEMSELVES.has(named) ? stopsCleanly(() => program.parseAsync(argv)) : program.parseAsync(argv));
  } catch (thrown) {
    // An API call's argument error speaks of the flag that carried the value.
    const err = flagNamed(thrown, running);
    if (interruptedBy() || err instanceof InterruptedError) return leaveInterrupted(err);
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return markSettled();
    }
    const missing = missingPieceMessage(err);
    if (missing !== null) {
      // Like an unavailable backend: the command cannot run as installed (exit 2).
      process.exitCode = 2;
      process.stderr.write(`powprime: ${missing}\n`);
      return markSettled();
    }
    process.exitCode = exitCodeFor(err);
    const known = err instanceof PowprimeError || err instanceof TypeError || err instanceof RangeError;
    const message = isUnusablePath(err) ? `cannot use ${err.path ?? 'a path given'}: ${PATH_ERRORS.get(err.code!)}` : err instanceof Error ? err.message : String(err);
    // Messages may carry a service's text: shown escaped, and so always on one line.
    process.stderr.write(`powprime: ${known || isUnusablePath(err) ? '' : 'unexpected error: '}${terminalLine(message)}\n`);
  }
  if (interruptedBy()) leaveInterrupted(undefined);
  markSettled();
}

/**
 * After a stop signal, whatever the command ended with (its InterruptedError,
 * a request cut short, or a normal return): the one interrupted line, and
 * exit at once, without waiting for idle connections or timers.
 */
function leaveInterrupted(err: unknown): never {
  const stopped = err instanceof InterruptedError ? err : new InterruptedError(interruptedBy()!);
  reportInterrupted(stopped);
  leaveProcess(exitCodeFor(stopped));
}

await main();
