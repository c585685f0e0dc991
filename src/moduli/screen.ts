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
 * a time in the kernel's vector lanes on the pool's threads (fermat-batch.ts),
 * as ssh-keygen first runs one Miller–Rabin round; only those that pass both
 * get the full check. The verdicts are the full check's: a number failing
 * Fermat's test is composite, so the full check would refuse it too.
 */
import { forEachAtOnce } from '../at-once.ts';
import { BACKEND_CHOICES, resolveBackend, type Backend, type BackendChoice } from '../backend.ts';
import { poolSize } from '../pool/pool.ts';
import { bitLength } from '../prime/bigint.ts';
import { isSafePrime } from '../prime/check.ts';
import { FERMAT_BATCH, fermatBase2Batch } from '../prime/fermat-batch.ts';
import { throwIfAborted } from '../run-lifecycle.ts';
import { checkFunction, checkOneOf, checkRounds, checkSignal, checkString, checkThreads } from '../validate.ts';
import { checkOptions, optionNames } from '../option-checks.ts';
import { MODULI_TESTS_MILLER_RABIN, MODULI_TRIES_MAX, MODULI_TYPE_SAFE, MODULI_TYPE_SOPHIE_GERMAIN, moduliTimestamp, sshGenerator, type ModuliEntry } from './format.ts';
import { moduliTries } from './generate.ts';
import { readModuliLines, type BadLine, type Candidate } from './screen-lines.ts';
import { PhaseProgress, type ScreenModuliProgress } from './screen-progress.ts';

export type { ScreenModuliProgress } from './screen-progress.ts';

export interface ScreenModuliOptions {
  /** Pool threads to use at most (default: one per core). */
  threads?: number;
  backend?: BackendChoice;
  /** Miller–Rabin rounds on q after Baillie–PSW (default by size), as `check` and the search run them. */
  rounds?: number;
  /** Stops the screening between two pool tasks (it rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Told after each pool task. */
  onProgress?: (p: ScreenModuliProgress) => void;
}
const SCREEN_MODULI_OPTIONS = optionNames<ScreenModuliOptions>()(['threads', 'backend', 'rounds', 'signal', 'onProgress']);

export interface ScreenModuliResult {
  /** Moduli lines read (comments and blank lines aside). */
  lines: number;
  /** The good groups, in file order, as type 2 with the tests and tries that were run. */
  good: ModuliEntry[];
  /** Every bad line, by number (from 1), and why. */
  bad: BadLine[];
  /** Type-4 candidates with no generator or not prime: what screening is for, not a fault of the file. */
  dropped: number;
}

/** The options, checked. */
interface Screening {
  rounds: number;
  backend: Backend;
  /** Pool tasks in flight: two a thread keep every thread fed; fewer than the pool's threads cap the cores used. */
  atOnce: number;
  signal: AbortSignal | undefined;
  onProgress: ((p: ScreenModuliProgress) => void) | undefined;
}

function parseScreenOptions(options: ScreenModuliOptions | undefined): Screening {
  const o = checkOptions('options', options, 'screenModuli', SCREEN_MODULI_OPTIONS);
  const threads = o.threads === undefined ? poolSize() : checkThreads('threads', o.threads);
  return {
    rounds: checkRounds('rounds', o.rounds),
    backend: resolveBackend(checkOneOf('backend', o.backend ?? 'auto', BACKEND_CHOICES)),
    atOnce: threads < poolSize() ? threads : 2 * poolSize(),
    signal: checkSignal('signal', o.signal),
    onProgress: checkFunction<(p: ScreenModuliProgress) => void>('onProgress', o.onProgress),
  };
}

/**
 * The candidates whose `of(c)` passes a base-2 Fermat test, in their order:
 * FERMAT_BATCH numbers of one size a pool task, s.atOnce tasks in flight.
 * `pNotNeeded` (the pass on q): a failing candidate's p test, which it no
 * longer needs, is counted done with its q's, so progress runs even through
 * the pass rather than jumping at its end.
 */
async function passFermat(cs: Candidate[], of: (c: Candidate) => bigint, s: Screening, progress: PhaseProgress, pNotNeeded = false): Promise<Candidate[]> {
  const done = (tested: Candidate[], failed: Candidate[]): void => progress.add(pNotNeeded ? [...tested, ...failed] : tested);
  const bySize = new Map<number, Candidate[]>();
  for (const c of cs) {
    const n = of(c);
    // An even q (a candidate whose p takes generator 5 with p ≡ 1 mod 4) is not prime: no test needed.
    if (!(n & 1n)) {
      done([c], [c]);
      continue;
    }
    const group = bySize.get(bitLength(n));
    if (group) group.push(c);
    else bySize.set(bitLength(n), [c]);
  }
  // The native kernel tests a batch in its vector lanes; the TS backend one number at a time, so more would only make the tasks coarser.
  const size = s.backend === 'native' ? FERMAT_BATCH : 1;
  const batches: Candidate[][] = [];
  for (const group of bySize.values()) for (let i = 0; i < group.length; i += size) batches.push(group.slice(i, i + size));
  const passed = new Set<Candidate>();
  await forEachAtOnce(
    batches,
    s.atOnce,
    async (batch) => {
      const verdicts = await fermatBase2Batch(batch.map(of), s.backend);
      batch.forEach((c, i) => {
        if (verdicts[i]) passed.add(c);
      });
      done(
        batch,
        batch.filter((_, i) => !verdicts[i]),
      );
    },
    s.signal,
  );
  return cs.filter((c) => passed.has(c));
}

/** Screens the text of a moduli file (see above). */
export async function screenModuli(text: string, options?: ScreenModuliOptions): Promise<ScreenModuliResult> {
  checkString('text', text);
  const s = parseScreenOptions(options);
  throwIfAborted(s.signal);
  const read = readModuliLines(text);
  const { lines, candidates, bad } = read;
  let { dropped } = read;

  // Type-4 lines are mostly composite: Fermat's test on q, then on p, drops those. Type-2 lines claim to be safe primes, so they go straight to the full check.
  const untested = candidates.filter((c) => c.entry.type === MODULI_TYPE_SOPHIE_GERMAIN);
  const sieving = new PhaseProgress('sieving', untested, 2, s.onProgress);
  const qPassed = await passFermat(untested, (c) => c.p >> 1n, s, sieving, true);
  const bothPassed = new Set(await passFermat(qPassed, (c) => c.p, s, sieving));
  dropped += untested.length - bothPassed.size;
  const toCheck = candidates.filter((c) => c.entry.type !== MODULI_TYPE_SOPHIE_GERMAIN || bothPassed.has(c));

  const safe = new Map<Candidate, boolean>();
  const checking = new PhaseProgress('checking', toCheck, 1, s.onProgress);
  const rounds = s.rounds < 0 ? {} : { rounds: s.rounds };
  await forEachAtOnce(
    toCheck,
    s.atOnce,
    async (c) => {
      safe.set(c, await isSafePrime(c.p, { ...rounds, backend: s.backend }));
      checking.add([c]);
    },
    s.signal,
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
    const ours = moduliTries(bits, s.rounds);
    good.push({
      timestamp: moduliTimestamp(new Date()),
      type: MODULI_TYPE_SAFE,
      tests: c.entry.tests | MODULI_TESTS_MILLER_RABIN,
      // At most what sshd reads: a line that claims nearly 2^30 rounds already is kept, not refused for ours.
      tries: tested ? Math.min(c.entry.tries + ours, MODULI_TRIES_MAX) : ours,
      size: bits - 1,
      generator: sshGenerator(c.p)!,
      modulus: c.p,
    });
  }
  bad.sort((a, b) => a.lineNo - b.lineNo);
  return { lines, good, bad, dropped };
}
