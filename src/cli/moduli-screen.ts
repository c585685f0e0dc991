/**
 * `powprime moduli --screen FILE`: checks any moduli file as `ssh-keygen -M
 * screen` would, and more strictly (src/moduli/screen.ts). The good groups
 * are written as type 2 with the tests and tries that were run, to stdout or
 * --out; every bad line is named with its number.
 */
import { readFileSync } from 'node:fs';
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { formatModuliLine } from '../moduli/format.ts';
import { screenModuli } from '../moduli/screen.ts';
import { checkOneOf, checkRounds, checkThreads } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { interruptSignal } from './interrupt.ts';
import type { ModuliOpts } from './moduli.ts';
import { checkRegularFile, replaceablePath } from './out-path.ts';
import { isQuiet } from './progress-mode.ts';
import { StatusLine } from './status.ts';

export async function screenModuliFile(file: string, opts: ModuliOpts): Promise<void> {
  if (opts.json && opts.out === undefined) throw new RangeError('--json goes with --out: without it the good lines are the output');
  // Checked here to name the flags; screenModuli would name its options.
  const rounds = opts.rounds === undefined ? undefined : checkRounds('--rounds', parseIntArg('--rounds', opts.rounds));
  const threads = opts.threads === undefined ? undefined : checkThreads('--threads', parseIntArg('--threads', opts.threads));
  const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
  checkRegularFile(file, '--screen');
  const target = opts.out === undefined ? null : replaceablePath(opts.out);
  const text = readFileSync(file, 'utf8');
  const status = new StatusLine();
  let r: Awaited<ReturnType<typeof screenModuli>>;
  try {
    r = await screenModuli(text, {
      ...(rounds === undefined ? {} : { rounds }),
      ...(threads === undefined ? {} : { threads }),
      backend,
      signal: interruptSignal,
      onProgress: ({ phase, done, total }) => status.update(`${phase} ${done}/${total}`, { phase, done, total }),
    });
  } finally {
    status.clear();
  }
  for (const b of r.bad) process.stderr.write(`powprime: ${file} line ${b.lineNo}: ${b.reason}\n`);
  const good = r.good.map((e) => `${formatModuliLine(e)}\n`).join('');
  if (target) writeFileAtomic(target, good, 0o644);
  else process.stdout.write(good);
  if (opts.json) process.stdout.write(`${JSON.stringify({ file, out: opts.out, lines: r.lines, good: r.good.length, bad: r.bad.length, dropped: r.dropped })}\n`);
  else if (!isQuiet() && (target || process.stderr.isTTY)) {
    process.stderr.write(
      `${r.good.length} good, ${r.bad.length} bad${r.dropped ? `, ${r.dropped} candidates dropped (not prime or no generator)` : ''}${target ? `; good groups in ${opts.out}` : ''}\n`,
    );
  }
  // 1: a line was bad, or nothing passed ("failed or found nothing").
  process.exitCode = r.bad.length || !r.good.length ? 1 : 0;
}
