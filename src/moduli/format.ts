/**
 * OpenSSH's moduli(5) format, as sshd and `ssh-keygen -M screen` read it: one
 * group a line, `YYYYMMDDHHMMSS type tests tries size generator modulus`,
 * blank lines and `#` comments allowed. Pure: no I/O, no Node built-ins;
 * what the library is given is checked, each error naming the argument.
 *
 * - type: 2 a safe prime p (what sshd uses); 4 a Sophie Germain candidate q
 *   (p = 2q + 1), as `ssh-keygen -M generate` writes before screening.
 * - tests: a bitmask of what was run: 0x01 found composite (sshd skips the
 *   line), 0x02 sieve, 0x04 Miller–Rabin.
 * - tries: Miller–Rabin rounds run.
 * - size: p's bit length minus one (for type 4, q's bit length minus one).
 * - generator: hex; the modulus: upper-case hex.
 */

import { argumentError, checkInteger, checkString, show } from '../validate.ts';

export const MODULI_TYPE_SAFE = 2;
export const MODULI_TYPE_SOPHIE_GERMAIN = 4;
export const MODULI_TESTS_COMPOSITE = 0x01;
export const MODULI_TESTS_SIEVE = 0x02;
export const MODULI_TESTS_MILLER_RABIN = 0x04;

/** The most sshd reads in a line's tests (a 5-bit mask) and tries fields, and its widest modulus (size at most 64 Ki, dh.c parse_prime). */
const MODULI_TESTS_MAX = 0x1f;
export const MODULI_TRIES_MAX = 2 ** 30;
const MODULUS_MAX_BITS = 64 * 1024 + 1;

/** The sizes `powprime moduli` makes (sshd's group exchange asks for 2048 to 8192 bits). */
export const MODULI_MIN_BITS = 2048;
export const MODULI_MAX_BITS = 8192;

export interface ModuliEntry {
  /** UTC, YYYYMMDDHHMMSS. */
  timestamp: string;
  type: number;
  tests: number;
  tries: number;
  /** As written: the bit length of the number on the line, minus one. */
  size: number;
  generator: number;
  /** The number on the line: p for type 2, q for type 4. */
  modulus: bigint;
}

/** A line that is not a group: `reason` says why, in words for a person. */
export interface ModuliLineError {
  reason: string;
}

/**
 * The generator `ssh-keygen -M screen` gives a safe prime p: 2 where
 * p ≡ 11 (mod 24), 5 where p mod 10 is 3 or 7, none (null) otherwise. Each
 * generates the whole group: 2 and 5 are then quadratic non-residues mod p.
 */
export function sshGenerator(p: bigint): 2 | 5 | null {
  if (typeof p !== 'bigint') throw argumentError(TypeError, 'p', `must be a bigint (got ${show(p)})`);
  if (p % 24n === 11n) return 2;
  const r = p % 10n;
  return r === 3n || r === 7n ? 5 : null;
}

/** YYYYMMDDHHMMSS of `date` in UTC, as ssh-keygen writes it. */
export function moduliTimestamp(date: Date): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw argumentError(TypeError, 'date', `must be a valid Date (got ${show(date)})`);
  return date.toISOString().replace(/[-T:]/g, '').slice(0, 14);
}

const ENTRY_FIELDS = ['timestamp', 'type', 'tests', 'tries', 'size', 'generator', 'modulus'] as const;

/** An entry given to the library: every field present and of its form, each error naming the field. */
function checkEntry(name: string, e: ModuliEntry): ModuliEntry {
  // Other keys are let be: an entry may travel inside a caller's own record.
  if (e === null || typeof e !== 'object') throw argumentError(TypeError, name, `must be a moduli entry {${ENTRY_FIELDS.join(', ')}} (got ${show(e)})`);
  if (!/^\d{14}$/.test(checkString(`${name}.timestamp`, e.timestamp))) throw argumentError(RangeError, `${name}.timestamp`, `must be 14 digits, YYYYMMDDHHMMSS (got ${show(e.timestamp)})`);
  for (const k of ['type', 'tests', 'tries', 'size', 'generator'] as const) checkInteger(`${name}.${k}`, e[k], 0, Number.MAX_SAFE_INTEGER);
  if (typeof e.modulus !== 'bigint') throw argumentError(TypeError, `${name}.modulus`, `must be a bigint (got ${show(e.modulus)})`);
  if (e.modulus < 1n) throw argumentError(RangeError, `${name}.modulus`, `must be positive (got ${show(e.modulus)})`);
  return e;
}

/** One moduli(5) line (no newline). */
export function formatModuliLine(entry: ModuliEntry): string {
  const e = checkEntry('entry', entry);
  return `${e.timestamp} ${e.type} ${e.tests} ${e.tries} ${e.size} ${e.generator.toString(16)} ${e.modulus.toString(16).toUpperCase()}`;
}

const FIELDS = /^(\d{14})\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([0-9A-Fa-f]+)\s+([0-9A-Fa-f]+)$/;

/**
 * Parses one line: null for a blank line or a comment, the entry when its
 * seven fields have their form, else the reason it is not a moduli line.
 * Only the form is checked here (checkEntry says whether sshd would use it).
 */
export function parseModuliLine(text: string): ModuliEntry | ModuliLineError | null {
  const line = checkString('text', text).trim();
  if (line === '' || line.startsWith('#')) return null;
  const m = FIELDS.exec(line);
  if (!m) {
    const fields = line.split(/\s+/).length;
    return { reason: fields === 7 ? 'a field is not of its form (14 digits, four decimal numbers, two hex numbers)' : `${fields} ${fields === 1 ? 'field' : 'fields'}, not 7` };
  }
  const [, timestamp, type, tests, tries, size, generator, modulus] = m as unknown as [string, string, string, string, string, string, string, string];
  const numbers = [type, tests, tries, size].map(Number);
  if (numbers.some((n) => !Number.isSafeInteger(n)) || generator.length > 8) return { reason: 'a number field is too large' };
  // Before the BigInt: a line of megabytes is named here, not by a failing allocation.
  if (modulus.replace(/^0+/, '').length > Math.ceil(MODULUS_MAX_BITS / 4)) return { reason: `the modulus has more than ${MODULUS_MAX_BITS} bits, the most sshd reads` };
  return { timestamp, type: numbers[0]!, tests: numbers[1]!, tries: numbers[2]!, size: numbers[3]!, generator: Number.parseInt(generator, 16), modulus: BigInt(`0x${modulus}`) };
}

/** Why sshd would refuse a line's tests or tries field whatever its type (above what it reads), or null. */
export function moduliFieldsProblem(e: Pick<ModuliEntry, 'tests' | 'tries'>): string | null {
  if (e.tests > MODULI_TESTS_MAX) return `tests ${e.tests} is above 0x${MODULI_TESTS_MAX.toString(16)}, the most sshd reads`;
  if (e.tries > MODULI_TRIES_MAX) return `tries ${e.tries} is above 2^30, the most sshd reads`;
  return null;
}

/**
 * Why sshd (or ssh-keygen's generator rule) would not use a type-2 entry, or
 * null when it would: sshd takes type 2, tests without 0x01, not 0 and at
 * most 0x1f, tries from 1 to 2^30, size + 1 equal to the modulus's bit length
 * and a generator above 1; the generator must also be the one ssh-keygen's
 * rule gives. Primality is not checked here.
 */
export function moduliEntryProblem(entry: ModuliEntry): string | null {
  const e = checkEntry('entry', entry);
  if (e.type !== MODULI_TYPE_SAFE) return `type ${e.type}, not ${MODULI_TYPE_SAFE} (a safe prime)`;
  if (e.tests & MODULI_TESTS_COMPOSITE) return 'marked composite (tests has 0x01)';
  if (e.tests === 0) return 'tests 0: marked untested';
  if (e.tries === 0) return 'tries 0';
  const fields = moduliFieldsProblem(e);
  if (fields) return fields;
  // Not prime/bigint.ts's bitLength: that module's imports reach Node built-ins, and this one stays pure.
  const length = e.modulus.toString(2).length;
  if (e.size + 1 !== length) return `size ${e.size}, but the modulus has ${length} bits (size is the bit length minus one)`;
  const g = sshGenerator(e.modulus);
  if (g === null) return "the modulus has no generator by ssh-keygen's rule (p ≡ 11 mod 24 for 2, p mod 10 of 3 or 7 for 5)";
  if (e.generator !== g) return `generator ${e.generator.toString(16)}, but ssh-keygen's rule gives ${g}`;
  return null;
}
