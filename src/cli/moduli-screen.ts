/**
 * `powprime moduli --screen FILE`: checks any moduli file as `ssh-keygen -M
 * screen` would, and more strictly: each line's form, type (2 safe prime,
 * 4 ssh-keygen's Sophie Germain candidate q), size and generator rule, then p
 * and q = (p−1)/2 tested as `check` does (p proved by Pocklington given q).
 * The good groups are written as type 2 with the tests and tries that were
 * run; every bad line is named with its number. A type-4 candidate that is
 * not prime or has no generator is not bad (that is what screening is for),
 * only dropped, as ssh-keygen drops it.
 */
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import {
  moduliEntryProblem,
  formatModuliLine,
  MODULI_TESTS_COMPOSITE,
  MODULI_TESTS_MILLER_RABIN,
  MODULI_TYPE_SAFE,
  MODULI_TYPE_SOPHIE_GERMAIN,
  moduliTimestamp,
  parseModuliLine,
  sshGenerator,
  type ModuliEntry,
} from '../moduli/format.ts';
import { moduliTries } from '../moduli/generate.ts';
import { isSafePrime } from '../prime/check.ts';
import { checkRounds } from '../validate.ts';
import { parseIntArg } from './args.ts';
import type { ModuliOpts } from './moduli.ts';
import { checkRegularFile, replaceablePath } from './out-path.ts';
import { isQuiet } from './progress-mode.ts';
import { checkEach } from './verify-lines.ts';

/** ssh-keygen screens nothing below this size field (QSIZE_MINIMUM). */
const MIN_SIZE = 511;

interface Candidate {
  lineNo: number;
  entry: ModuliEntry;
  /** The safe prime the line stands for (type 4: 2q + 1). */
  p: bigint;
}

/** The p a parsed line stands for, why it is bad, or null for a candidate screening drops (it has no generator, as ssh-keygen drops it). */
function candidateOf(e: ModuliEntry): bigint | string | null {
  if (e.tests & MODULI_TESTS_COMPOSITE) return 'marked composite (tests has 0x01)';
  if (e.type === MODULI_TYPE_SOPHIE_GERMAIN) {
    const p = 2n * e.modulus + 1n;
    // ssh-keygen's rule for candidates: the size field is q's bit length minus one.
    if (e.size + 1 !== e.modulus.toString(2).length) return `size ${e.size}, but q has ${e.modulus.toString(2).length} bits (a candidate's size is q's bit length minus one)`;
    if (e.size < MIN_SIZE) return `size ${e.size} is below ssh-keygen's least (${MIN_SIZE})`;
    return sshGenerator(p) === null ? null : p;
  }
  if (e.type !== MODULI_TYPE_SAFE) return `type ${e.type}: neither 2 (a safe prime) nor 4 (a candidate q)`;
  // Untested lines (tests or tries 0) are what screening is for: only their form is judged here.
  const problem = moduliEntryProblem({ ...e, tests: e.tests || MODULI_TESTS_MILLER_RABIN, tries: e.tries || 1, generator: e.generator || (sshGenerator(e.modulus) ?? 0) });
  if (problem) return problem;
  return e.size < MIN_SIZE ? `size ${e.size} is below ssh-keygen's least (${MIN_SIZE})` : e.modulus;
}

export async function screenModuli(file: string, opts: ModuliOpts): Promise<void> {
  if (opts.json && opts.out === undefined) throw new RangeError('--json goes with --out: without it the good lines are the output');
  const rounds = opts.rounds === undefined ? -1 : checkRounds('--rounds', parseIntArg('--rounds', opts.rounds));
  checkRegularFile(file, '--screen');
  const target = opts.out === undefined ? null : replaceablePath(opts.out);
  const text = readFileSync(file, 'utf8');
  const bad: { lineNo: number; reason: string }[] = [];
  const candidates: Candidate[] = [];
  let lines = 0;
  /** Candidates (type 4) with no generator or not prime: what screening is for, not a fault of the file. */
  let dropped = 0;
  text.split('\n').forEach((line, i) => {
    const parsed = parseModuliLine(line);
    if (parsed === null) return;
    lines++;
    const p = 'reason' in parsed ? `not a moduli line: ${parsed.reason}` : candidateOf(parsed);
    if (p === null) dropped++;
    else if (typeof p === 'string') bad.push({ lineNo: i + 1, reason: p });
    else candidates.push({ lineNo: i + 1, entry: parsed as ModuliEntry, p });
  });
  const safe = await checkEach(candidates, (c) => isSafePrime(c.p, rounds < 0 ? {} : { rounds }), 'screening');
  const good: string[] = [];
  candidates.forEach((c, i) => {
    if (!safe[i]) {
      if (c.entry.type === MODULI_TYPE_SOPHIE_GERMAIN) dropped++;
      else bad.push({ lineNo: c.lineNo, reason: 'p or (p-1)/2 is not prime' });
      return;
    }
    const bits = c.p.toString(2).length;
    const ours = moduliTries(bits, rounds);
    const tested = c.entry.type === MODULI_TYPE_SAFE && c.entry.tests & MODULI_TESTS_MILLER_RABIN;
    const entry: ModuliEntry = {
      timestamp: moduliTimestamp(new Date()),
      type: MODULI_TYPE_SAFE,
      tests: c.entry.tests | MODULI_TESTS_MILLER_RABIN,
      tries: tested ? c.entry.tries + ours : ours,
      size: bits - 1,
      generator: sshGenerator(c.p)!,
      modulus: c.p,
    };
    good.push(`${formatModuliLine(entry)}\n`);
  });
  bad.sort((a, b) => a.lineNo - b.lineNo);
  for (const b of bad) process.stderr.write(`powprime: ${file} line ${b.lineNo}: ${b.reason}\n`);
  if (target) writeFileAtomic(target, good.join(''), 0o644);
  else process.stdout.write(good.join(''));
  const summary = { lines, good: good.length, bad: bad.length, dropped };
  if (opts.json) process.stdout.write(`${JSON.stringify({ file, out: opts.out, ...summary })}\n`);
  else if (!isQuiet() && (target || process.stderr.isTTY)) {
    process.stderr.write(`${good.length} good, ${bad.length} bad${dropped ? `, ${dropped} candidates dropped (not prime or no generator)` : ''}${target ? `; good groups in ${opts.out}` : ''}\n`);
  }
  // 1: a line was bad, or nothing passed ("failed or found nothing").
  process.exitCode = bad.length || !good.length ? 1 : 0;
}
