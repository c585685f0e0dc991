// The moduli(5) format module against OpenSSH's own file (lines written by
// ssh-keygen -M screen, shipped by Debian's openssh-server) and node:crypto:
// parsing, writing back byte for byte, the generator rule, sshd's checks.
import { checkPrimeSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moduliEntryProblem, formatModuliLine, moduliTimestamp, parseModuliLine, sshGenerator, type ModuliEntry } from '../src/moduli/format.ts';

const sample = readFileSync(new URL('./vectors/openssh-moduli-sample.txt', import.meta.url), 'utf8')
  .trimEnd()
  .split('\n');
const groups = sample.filter((l) => !l.startsWith('#'));
const entry = (line: string): ModuliEntry => {
  const e = parseModuliLine(line);
  if (e === null || 'reason' in e) throw new Error(`not parsed: ${line}`);
  return e;
};

describe('moduli(5) lines', () => {
  it('reads every line of OpenSSH shipped file and writes it back byte for byte', () => {
    expect(groups).toHaveLength(12);
    expect(parseModuliLine(sample[0]!)).toBeNull(); // the header comment
    for (const line of groups) {
      const e = entry(line);
      expect(formatModuliLine(e)).toBe(line);
      expect(moduliEntryProblem(e)).toBeNull();
      expect(e.modulus.toString(2).length).toBe(e.size + 1);
    }
    expect(new Set(groups.map((l) => entry(l).size))).toEqual(new Set([2047, 3071, 4095, 6143, 7679, 8191]));
  });

  it("gives each of OpenSSH's groups the generator ssh-keygen gave it", () => {
    for (const line of groups) expect(sshGenerator(entry(line).modulus), line.slice(0, 40)).toBe(entry(line).generator);
  });

  it('the generator rule is the stated one, over numbers of every class mod 120', () => {
    // p ≡ 11 (mod 24) → 2; else p mod 10 of 3 or 7 → 5; else none (ssh-keygen's moduli.c).
    fc.assert(
      fc.property(fc.bigInt({ min: 5n, max: 1n << 200n }), (n) => {
        const g = sshGenerator(n);
        if (n % 24n === 11n) expect(g).toBe(2);
        else if ([3n, 7n].includes(n % 10n)) expect(g).toBe(5);
        else expect(g).toBeNull();
      }),
    );
  });

  it('the 2048- and 3072-bit groups are safe primes by node:crypto', () => {
    for (const line of groups.slice(0, 4)) {
      const p = entry(line).modulus;
      expect(checkPrimeSync(p) && checkPrimeSync(p >> 1n)).toBe(true);
    }
  });

  it('names what sshd would refuse: type, composite, untested, tests and tries out of its bounds, size, generator', () => {
    const good = entry(groups[0]!);
    const cases: [Partial<ModuliEntry>, RegExp][] = [
      [{ type: 4 }, /type 4/],
      [{ tests: 7 }, /composite/],
      [{ tests: 0 }, /untested/],
      [{ tries: 0 }, /tries 0/],
      // sshd's own bounds (dh.c parse_prime): tests at most 0x1f, tries at most 2^30.
      [{ tests: 38 }, /tests 38 is above 0x1f/],
      [{ tries: 2 ** 30 + 1 }, /tries 1073741825 is above 2\^30/],
      [{ size: 2048 }, /size 2048, but the modulus has 2048 bits/],
      [{ generator: 5 }, /generator 5, but ssh-keygen's rule gives 2/],
      [{ generator: 1 }, /generator 1/],
      [{ modulus: good.modulus - (good.modulus % 120n) + 119n }, /no generator by ssh-keygen's rule/],
    ];
    for (const [change, reason] of cases) expect(moduliEntryProblem({ ...good, ...change })).toMatch(reason);
  });

  it('refuses malformed lines with a reason, and skips blanks and comments', () => {
    expect(parseModuliLine('')).toBeNull();
    expect(parseModuliLine('   # a comment')).toBeNull();
    expect(parseModuliLine('20220714110357 2 6 100 2047 2')).toEqual({ reason: '6 fields, not 7' });
    expect(parseModuliLine('2022071411035 2 6 100 2047 2 E9')).toHaveProperty('reason');
    expect(parseModuliLine('20220714110357 2 6 100 2047 2 XYZ')).toHaveProperty('reason');
    expect(parseModuliLine('20220714110357 2 6 100 2047 2 E98F junk')).toEqual({ reason: '8 fields, not 7' });
    expect(parseModuliLine(`20220714110357 2 6 ${'9'.repeat(30)} 2047 2 E9`)).toEqual({ reason: 'a number field is too large' });
    // Past what sshd reads, named before the number is made: leading zeros do not count.
    expect(parseModuliLine(`20220714110357 2 6 100 65536 2 ${'F'.repeat(16386)}`)).toEqual({ reason: 'the modulus has more than 65537 bits, the most sshd reads' });
    expect(parseModuliLine(`20220714110357 2 6 100 65536 2 ${'0'.repeat(100)}1${'0'.repeat(16384)}`)).toHaveProperty('modulus', 1n << 65536n);
  });

  it('timestamps in UTC as ssh-keygen writes them', () => {
    expect(moduliTimestamp(new Date(Date.UTC(2026, 10, 28, 3, 4, 5)))).toBe('20261128030405');
  });

  it('refuses what is not a line, an entry, a number or a date, naming the argument', () => {
    const good = entry(groups[0]!);
    const call = (f: (...a: never[]) => unknown, ...a: unknown[]): unknown => (f as (...b: unknown[]) => unknown)(...a);
    const cases: [() => unknown, ErrorConstructor, RegExp][] = [
      [() => call(parseModuliLine, 42), TypeError, /^text must be a string \(got 42\)/],
      [() => call(formatModuliLine, {}), TypeError, /^entry\.timestamp must be a string/],
      [() => call(formatModuliLine, null), TypeError, /^entry must be a moduli entry/],
      [() => formatModuliLine({ ...good, timestamp: 'x' }), RangeError, /^entry\.timestamp must be 14 digits/],
      [() => call(formatModuliLine, { ...good, modulus: 123 }), TypeError, /^entry\.modulus must be a bigint \(got 123\)/],
      [() => formatModuliLine({ ...good, modulus: 0n }), RangeError, /^entry\.modulus must be positive/],
      [() => formatModuliLine({ ...good, generator: 2.5 }), RangeError, /^entry\.generator must be an integer/],
      [() => moduliEntryProblem({ ...good, tries: -1 }), RangeError, /^entry\.tries must be an integer/],
      [() => call(sshGenerator, 23), TypeError, /^p must be a bigint \(got 23\)/],
      [() => moduliTimestamp(new Date(Number.NaN)), TypeError, /^date must be a valid Date/],
    ];
    for (const [run, kind, message] of cases) {
      expect(run).toThrow(kind);
      expect(run).toThrow(message);
    }
    // A caller's record with more in it is still an entry.
    expect(formatModuliLine({ ...good, note: 'mine' } as ModuliEntry)).toBe(formatModuliLine(good));
  });
});
