/**
 * `powprime moduli --screen FILE`: checks any moduli file as `ssh-keygen -M
 * screen` would, and more strictly (src/moduli/screen.ts). The good groups
 * are written as type 2 with the tests and tries that were run, to stdout or
 * --out; every bad line is named with its number. FILE may be a pipe or `-`.
 */
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { formatModuliLine, MODULI_TYPE_SAFE, MODULI_TYPE_SOPHIE_GERMAIN, parseModuliLine } from '../moduli/format.ts';
import { screenModuli, type ScreenModuliResult } from '../moduli/screen.ts';
import { NOT_A_MODULI_LINE } from '../moduli/screen-lines.ts';
import { DEFAULT_QUEUE_NAME } from '../queue/connection.ts';
import { checkOneOf, checkRounds, checkThreads } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { lockOutFile } from './out-file.ts';
import { HEADER_START } from './moduli-file.ts';
import { checkNothingLost, type KeptBy } from './merge-target.ts';
import { interruptSignal } from './interrupt.ts';
import type { ModuliOpts } from './moduli-flags.ts';
import { replaceablePath } from './out-path.ts';
import { isQuiet } from './progress-mode.ts';
import { readTextInput } from './read-input.ts';
import { StatusLine } from './status.ts';
import { PhaseTimeLeft, formatEta } from './time-left.ts';

/** ssh-keygen's largest candidate files (a 127 MB window at 2048 bits) are tens of MB; a string holds at most about 512 MB. */
const MAX_SCREEN_BYTES = 256 << 20;

/**
 * What of --out a screen keeps: its groups by p (a type-4 line's p is 2q + 1), whatever their timestamp and
 * tries, which a screen writes anew; a line of any other kind only as it is.
 */
const KEPT_BY_SCREEN: KeptBy = {
  command: 'screen',
  key: (line) => {
    const e = parseModuliLine(line);
    if (e === null || 'reason' in e) return line;
    return e.type === MODULI_TYPE_SOPHIE_GERMAIN ? `p ${2n * e.modulus + 1n}` : e.type === MODULI_TYPE_SAFE ? `p ${e.modulus}` : line;
  },
};

export async function screenModuliFile(file: string, opts: ModuliOpts): Promise<void> {
  const generation = {
    '--bits': opts.bits,
    '--count': opts.count,
    '--seed': opts.seed,
    '--shard': opts.shard,
    '--shard-count': opts.shardCount,
    '--queue': opts.queue,
    '--queue-name': opts.queueName === DEFAULT_QUEUE_NAME ? undefined : opts.queueName,
  };
  for (const [flag, v] of Object.entries(generation)) if (v !== undefined) throw new RangeError(`${flag} does not go with --screen`);
  if (opts.json && opts.out === undefined) throw new RangeError('--json goes with --out: without it the good lines are the output');
  // Checked here to name the flags; screenModuli would name its options.
  const rounds = opts.rounds === undefined ? undefined : checkRounds('--rounds', parseIntArg('--rounds', opts.rounds));
  const threads = opts.threads === undefined ? undefined : checkThreads('--threads', parseIntArg('--threads', opts.threads));
  const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
  const target = opts.out === undefined ? null : replaceablePath(opts.out);
  // A run appending to --out (moduli --out) holds its lock: replaced under it, the groups it adds next would be lost.
  const lock = opts.out === undefined ? null : lockOutFile(opts.out);
  try {
    await screenInto(file, opts, target, { rounds, threads, backend });
  } finally {
    lock?.release();
  }
}

async function screenInto(file: string, opts: ModuliOpts, target: string | null, checks: { rounds: number | undefined; threads: number | undefined; backend: BackendChoice }): Promise<void> {
  const { rounds, threads, backend } = checks;
  // A person at a terminal who typed `-` is told what is awaited, not left at a silent prompt.
  if (file === '-' && process.stdin.isTTY && !isQuiet()) process.stderr.write('reading moduli lines from stdin; Ctrl-D ends them\n');
  const text = await readTextInput(file, '--screen', MAX_SCREEN_BYTES, interruptSignal);
  // A group of --out's that the input does not even hold would be lost: refused now, not after minutes of tests.
  if (target) checkNothingLost(target, opts.out!, [file], text, KEPT_BY_SCREEN);
  const status = new StatusLine();
  const timeLeft = new PhaseTimeLeft();
  let r: Awaited<ReturnType<typeof screenModuli>>;
  try {
    r = await screenModuli(text, {
      ...(rounds === undefined ? {} : { rounds }),
      ...(threads === undefined ? {} : { threads }),
      backend,
      signal: interruptSignal,
      onProgress: ({ phase, done, total, workDone }) => {
        const etaMs = timeLeft.ms(phase, workDone);
        // Whole milliseconds in JSON, as every other time there.
        status.update(screenStatus(phase, done, total, etaMs), { phase, done, total, workDone, etaMs: etaMs === null ? null : Math.round(etaMs) });
        // An 8191-bit check takes seconds: between ticks the line counts down (drawn only, no JSON event).
        // Scheduled at every tick, so that a tick's redraw replaces the one of the tick before.
        const redraw = (): void => {
          const ms = timeLeft.leftNow();
          if (ms === null) return;
          status.update(screenStatus(phase, done, total, ms, true));
          status.schedule(redraw, 1000);
        };
        status.schedule(redraw, 1000);
      },
    });
  } finally {
    status.clear();
  }
  const name = file === '-' ? 'stdin' : file;
  // Not one moduli line in it (a binary, a wrong file): one line, not one a line of it.
  if (r.lines > 0 && r.bad.length === r.lines && r.bad.every((b) => b.reason.startsWith(NOT_A_MODULI_LINE))) {
    // gzip's magic number: a distribution's compressed copy (moduli.gz).
    if (text.startsWith('\x1f\ufffd')) {
      throw new RangeError(`--screen ${name} is gzip-compressed: ${file === '-' ? 'pipe it through zcat first' : `screen <(zcat ${name}) instead`}`);
    }
    throw new RangeError(`--screen ${name} is not a moduli file (line ${r.bad[0]!.lineNo}: ${r.bad[0]!.reason})`);
  }
  for (const b of r.bad) process.stderr.write(`powprime: ${name} line ${b.lineNo}: ${b.reason}\n`);
  const good = screenedText(text, r);
  // A run's file that lost lines is no longer that run's: its header would name indexes it does not hold.
  if (r.good.length && (r.bad.length || r.dropped) && text.split('\n').some((l) => l.startsWith(HEADER_START))) {
    // A crash mid-line leaves a torn last line, which a resume of the run cuts: the way to keep the header.
    const torn =
      !text.endsWith('\n') && r.bad.at(-1)?.lineNo === text.split('\n').length
        ? ' (its last line is torn, as a crash leaves it: resume the run with moduli --out first, which cuts it, then screen)'
        : '';
    process.stderr.write(
      `powprime: the good groups are written without ${name}'s powprime header: with lines gone they are no longer that run's moduli in order, so they cannot be resumed or merged as that run${torn}\n`,
    );
  }
  // Nothing passed: --out is left as it was. A wrong file given by mistake must not empty the one it would have replaced.
  if (target && r.good.length) {
    checkNothingLost(target, opts.out!, [file], good, KEPT_BY_SCREEN);
    writeFileAtomic(target, good, 0o644);
  } else if (!target) process.stdout.write(good);
  if (opts.json) process.stdout.write(`${JSON.stringify({ file, out: opts.out, lines: r.lines, good: r.good.length, bad: r.bad.length, dropped: r.dropped })}\n`);
  else if (!r.lines) process.stderr.write(`powprime: ${name} ${text.trim() === '' ? 'is empty' : 'holds no moduli lines (only comments or blank lines)'}\n`);
  else if (!isQuiet() && (target || process.stderr.isTTY)) {
    const where = !target ? '' : r.good.length ? `; good groups in ${opts.out}` : `; ${opts.out} left as it was`;
    process.stderr.write(`${r.good.length} good, ${r.bad.length} bad${r.dropped ? `, ${r.dropped} candidates dropped (not prime or no generator)` : ''}${where}\n`);
  }
  // 1: a line was bad, or nothing passed ("failed or found nothing").
  process.exitCode = r.bad.length || !r.good.length ? 1 : 0;
}

/**
 * The screened file. A file powprime wrote (a powprime header in it) whose every moduli line passed
 * as it was (none bad, none dropped) keeps its comment and blank lines where they were, each moduli
 * line replaced by its screened one: screened in place, it keeps its header, and still resumes and
 * merges. Otherwise the good groups alone, as ssh-keygen writes them.
 */
function screenedText(text: string, r: ScreenModuliResult): string {
  const good = r.good.map((e) => `${formatModuliLine(e)}\n`);
  if (!r.lines || r.bad.length || r.dropped || !text.split('\n').some((l) => l.startsWith(HEADER_START))) return good.join('');
  let next = 0;
  const lines = text.split('\n');
  // The text's last newline ends its last line; it does not start one more.
  if (lines.at(-1) === '') lines.pop();
  // Written with the screened lines' \n endings throughout (a CR left on a comment would make the file refused on resume).
  return lines.map((line) => (parseModuliLine(line) === null ? `${line.replace(/\r$/, '')}\n` : good[next++]!)).join('');
}

/**
 * The status line of a phase: done of total and the time left (the time left of the phase: how many of the
 * sieved candidates the full check gets is not known before). `countingDown` when drawn between ticks from
 * the last estimate: once that has run out, it says so rather than stand at "≈ 0s left" until the next tick.
 */
export function screenStatus(phase: string, done: number, total: number, ms: number | null, countingDown = false): string {
  // done = total: the phase ended (its tick said 0), and the next phase's first tick is still to come.
  if (countingDown && ms === 0 && done < total) return `${phase} ${done}/${total}, taking longer than estimated`;
  return `${phase} ${done}/${total}${ms === null ? '' : `, ≈ ${formatEta(ms)} left${phase === 'sieving' ? ' sieving' : ''}`}`;
}
