/**
 * The first step of screening a moduli file (screen.ts): each line read and
 * judged on its form alone, before any test. A line is a candidate to test
 * (the safe prime p it stands for), a bad line (named, with why), or a type-4
 * candidate with no generator, which ssh-keygen drops unread and so do we.
 */
import { MAX_CHECK_BITS } from '../limits.ts';
import { bitLength } from '../prime/bigint.ts';
import {
  moduliEntryProblem,
  moduliFieldsProblem,
  MODULI_TESTS_COMPOSITE,
  MODULI_TESTS_MILLER_RABIN,
  MODULI_TYPE_SAFE,
  MODULI_TYPE_SOPHIE_GERMAIN,
  parseModuliLine,
  sshGenerator,
  type ModuliEntry,
} from './format.ts';

/** How a bad line that is no moduli line at all begins its reason: a file of only these is no moduli file. */
export const NOT_A_MODULI_LINE = 'not a moduli line';

/** ssh-keygen screens nothing below this size (QSIZE_MINIMUM): p's size field, or a candidate's plus one (p's size). */
const MIN_SIZE = 511;
const tooSmall = (pSize: number): string | null => (pSize < MIN_SIZE ? `p's size ${pSize} is below ssh-keygen's least (${MIN_SIZE})` : null);

export interface Candidate {
  lineNo: number;
  entry: ModuliEntry;
  /** The safe prime the line stands for (type 4: 2q + 1). */
  p: bigint;
}

export interface BadLine {
  /** From 1, as an editor counts. */
  lineNo: number;
  reason: string;
}

export interface ReadLines {
  /** Moduli lines read (comments and blank lines aside). */
  lines: number;
  candidates: Candidate[];
  bad: BadLine[];
  /** Type-4 candidates with no generator. */
  dropped: number;
}

/** The p a parsed line stands for, why it is bad, or null for a candidate screening drops (it has no generator, as ssh-keygen drops it). */
function candidateOf(e: ModuliEntry): bigint | string | null {
  if (e.tests & MODULI_TESTS_COMPOSITE) return 'marked composite (tests has 0x01)';
  const fields = moduliFieldsProblem(e);
  if (fields) return fields;
  // The checks' own bound (isSafePrime refuses more): said of the line, before any test.
  const pBits = bitLength(e.modulus) + (e.type === MODULI_TYPE_SOPHIE_GERMAIN ? 1 : 0);
  if (pBits > MAX_CHECK_BITS) return `p has ${pBits} bits; at most ${MAX_CHECK_BITS} are checked`;
  if (e.type === MODULI_TYPE_SOPHIE_GERMAIN) {
    const p = 2n * e.modulus + 1n;
    // ssh-keygen's rule for candidates: the size field is q's bit length minus one.
    if (e.size + 1 !== bitLength(e.modulus)) return `size ${e.size}, but q has ${bitLength(e.modulus)} bits (a candidate's size is q's bit length minus one)`;
    const small = tooSmall(e.size + 1);
    if (small) return small;
    return sshGenerator(p) === null ? null : p;
  }
  if (e.type !== MODULI_TYPE_SAFE) return `type ${e.type}: neither 2 (a safe prime) nor 4 (a candidate q)`;
  // Untested lines (tests or tries 0) are what screening is for: only their form is judged here.
  const problem = moduliEntryProblem({ ...e, tests: e.tests || MODULI_TESTS_MILLER_RABIN, tries: e.tries || 1, generator: e.generator || (sshGenerator(e.modulus) ?? 0) });
  if (problem) return problem;
  return tooSmall(e.size) ?? e.modulus;
}

/** Every line of a moduli file's text, judged on its form. */
export function readModuliLines(text: string): ReadLines {
  const r: ReadLines = { lines: 0, candidates: [], bad: [], dropped: 0 };
  text.split('\n').forEach((line, i) => {
    const parsed = parseModuliLine(line);
    if (parsed === null) return;
    r.lines++;
    const p = 'reason' in parsed ? `${NOT_A_MODULI_LINE}: ${parsed.reason}` : candidateOf(parsed);
    if (p === null) r.dropped++;
    else if (typeof p === 'string') r.bad.push({ lineNo: i + 1, reason: p });
    else r.candidates.push({ lineNo: i + 1, entry: parsed as ModuliEntry, p });
  });
  return r;
}
