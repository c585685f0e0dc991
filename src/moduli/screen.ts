/**
 * Screening a moduli file as `ssh-keygen -M screen` does, and more
 * strictly: each line's form, type (2 safe prime, 4 ssh-keygen's Sophie
 * Germain candidate q), size and generator rule, then p and q = (p−1)/2
 * tested as `check` does (p proved by Pocklington given q). A type-4
 * candidate that is not prime or has no generator is not bad (that is what
 * screening is for), only dropped, as ssh-keygen drops it.
 *
 * Most type-4 candidates are composite (about 1,600 of them a group at 2048
 * bits), so they first meet one base-2 Fermat test on q, then on p, many at
 * a time in the kernel's vector lanes on every pool thread (fermat-batch.ts),
 * as ssh-keygen first runs one Miller–Rabin round; only those that pass both
 * get the full check. The verdicts are the full check's: a number failing
 * Fermat's test is composite, so the full check would refuse it too.
 */
import type { Backend } from '../backend.ts';
import { forEachAtOnce } from '../at-once.ts';
import { MAX_CHECK_BITS } from '../limits.ts';
import { poolSize } from '../pool/pool.ts';
import { bitLength } from '../prime/bigint.ts';
import { isSafePrime } from '../prime/check.ts';
import { FERMAT_BATCH, fermatBase2Batch } from '../prime/fermat-batch.ts';
import {
  moduliEntryProblem,
  MODULI_TESTS_COMPOSITE,
  MODULI_TESTS_MILLER_RABIN,
  MODULI_TYPE_SAFE,
  MODULI_TYPE_SOPHIE_GERMAIN,
  moduliTimestamp,
  parseModuliLine,
  sshGenerator,
  type ModuliEntry,
} from './format.ts';
import { moduliTries } from './generate.ts';

/** ssh-keygen screens nothing below this size field (QSIZE_MINIMUM). */
const MIN_SIZE = 511;

export interface ScreenOptions {
  /** Miller–Rabin rounds after Baillie–PSW (-1: the default by size). */
  rounds: number;
  backend: Backend;
  /** Stops the screening between two pool tasks (it rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Told after each pool task: what is being done, and how far. */
  onProgress?: (phase: 'sieving' | 'checking', done: number, total: number) => void;
}

export interface ScreenResult {
  /** Moduli lines read (comments and blank lines aside). */
  lines: number;
  /** The good groups, in file order, as type 2 with the tests and tries that were run. */
  good: ModuliEntry[];
  /** Every bad line, by number (from 1), and why. */
  bad: { lineNo: number; reason: string }[];
  /** Type-4 candidates with no generator or not prime: what screening is for, not a fault of the file. */
  dropped: number;
}

interface Candidate {
  lineNo: number;
  entry: ModuliEntry;
  /** The safe prime the line stands for (type 4: 2q + 1). */
  p: bigint;
}

/** The p a parsed line stands for, why it is bad, or null for a candidate screening drops (it has no generator, as ssh-keygen drops it). */
function candidateOf(e: ModuliEntry): bigint | string | null {
  if (e.tests & MODULI_TESTS_COMPOSITE) return 'marked composite (tests has 0x01)';
  // The checks' own bound (isSafePrime refuses more): said of the line, before any test.
  const pBits = bitLength(e.modulus) + (e.type === MODULI_TYPE_SOPHIE_GERMAIN ? 1 : 0);
  if (pBits > MAX_CHECK_BITS) return `p has ${pBits} bits; at most ${MAX_CHECK_BITS} are checked`;
  if (e.type === MODULI_TYPE_SOPHIE_GERMAIN) {
    const p = 2n * e.modulus + 1n;
    // ssh-keygen's rule for candidates: the size field is q's bit length minus one.
    if (e.size + 1 !== bitLength(e.modulus)) return `size ${e.size}, but q has ${bitLength(e.modulus)} bits (a candidate's size is q's bit length minus one)`;
    if (e.size < MIN_SIZE) return `size ${e.size} is below ssh-keygen's least (${MIN_SIZE})`;
    return sshGenerator(p) === null ? null : p;
  }
  if (e.type !== MODULI_TYPE_SAFE) return `type ${e.type}: neither 2 (a safe prime) nor 4 (a candidate q)`;
  // Untested lines (tests or tries 0) are what screening is for: only their form is judged here.
  const problem = moduliEntryProblem({ ...e, tests: e.tests || MODULI_TESTS_MILLER_RABIN, tries: e.tries || 1, generator: e.generator || (sshGenerator(e.modulus) ?? 0) });
  if (problem) return problem;
  return e.size < MIN_SIZE ? `size ${e.size} is below ssh-keygen's least (${MIN_SIZE})` : e.modulus;
}

/**
 * The candidates whose `of(c)` passes a base-2 Fermat test, in their order:
 * FERMAT_BATCH numbers of one size a pool task, two tasks a thread in flight.
 */
async function passFermat(cs: Candidate[], of: (c: Candidate) => bigint, opts: ScreenOptions, progress: (n: number) => void): Promise<Candidate[]> {
  const bySize = new Map<number, Candidate[]>();
  for (const c of cs) {
    const n = of(c);
    // An even q (a candidate whose p takes generator 5 with p ≡ 1 mod 4) is not prime: no test needed.
    if (!(n & 1n)) {
      progress(1);
      continue;
    }
    const group = bySize.get(bitLength(n));
    if (group) group.push(c);
    else bySize.set(bitLength(n), [c]);
  }
  // The native kernel tests a batch in its vector lanes; the TS backend one number at a time, so more would only make the tasks coarser.
  const size = opts.backend === 'native' ? FERMAT_BATCH : 1;
  const batches: Candidate[][] = [];
  for (const group of bySize.values()) for (let i = 0; i < group.length; i += size) batches.push(group.slice(i, i + size));
  const passed = new Set<Candidate>();
  await forEachAtOnce(
    batches,
    2 * poolSize(),
    async (batch) => {
      const verdicts = await fermatBase2Batch(batch.map(of), opts.backend);
      batch.forEach((c, i) => {
        if (verdicts[i]) passed.add(c);
      });
      progress(batch.length);
    },
    opts.signal,
  );
  return cs.filter((c) => passed.has(c));
}

/** Screens the text of a moduli file (see above). */
export async function screenModuliText(text: string, opts: ScreenOptions): Promise<ScreenResult> {
  const bad: ScreenResult['bad'] = [];
  const candidates: Candidate[] = [];
  let lines = 0;
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

  // Type-4 lines are mostly composite: Fermat's test on q, then on p, drops those. Type-2 lines claim to be safe primes, so they go straight to the full check.
  const untested = candidates.filter((c) => c.entry.type === MODULI_TYPE_SOPHIE_GERMAIN);
  let sieved = 0;
  const sieving = (n: number): void => {
    if (n) opts.onProgress?.('sieving', (sieved += n), 2 * untested.length);
  };
  const qPassed = await passFermat(untested, (c) => c.p >> 1n, opts, sieving);
  sieving(untested.length - qPassed.length);
  const bothPassed = new Set(await passFermat(qPassed, (c) => c.p, opts, sieving));
  dropped += untested.length - bothPassed.size;
  const toCheck = candidates.filter((c) => c.entry.type !== MODULI_TYPE_SOPHIE_GERMAIN || bothPassed.has(c));

  const safe = new Map<Candidate, boolean>();
  let checked = 0;
  const rounds = opts.rounds < 0 ? {} : { rounds: opts.rounds };
  await forEachAtOnce(
    toCheck,
    2 * poolSize(),
    async (c) => {
      safe.set(c, await isSafePrime(c.p, { ...rounds, backend: opts.backend }));
      opts.onProgress?.('checking', ++checked, toCheck.length);
    },
    opts.signal,
  );

  const good: ModuliEntry[] = [];
  for (const c of toCheck) {
    if (!safe.get(c)) {
      if (c.entry.type === MODULI_TYPE_SOPHIE_GERMAIN) dropped++;
      else bad.push({ lineNo: c.lineNo, reason: 'p or (p-1)/2 is not prime' });
      continue;
    }
    const bits = bitLength(c.p);
    const tested = c.entry.type === MODULI_TYPE_SAFE && c.entry.tests & MODULI_TESTS_MILLER_RABIN;
    const ours = moduliTries(bits, opts.rounds);
    good.push({
      timestamp: moduliTimestamp(new Date()),
      type: MODULI_TYPE_SAFE,
      tests: c.entry.tests | MODULI_TESTS_MILLER_RABIN,
      tries: tested ? c.entry.tries + ours : ours,
      size: bits - 1,
      generator: sshGenerator(c.p)!,
      modulus: c.p,
    });
  }
  bad.sort((a, b) => a.lineNo - b.lineNo);
  return { lines, good, bad, dropped };
}
