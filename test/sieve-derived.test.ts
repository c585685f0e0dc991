// The deep tier's derived roots: a SafePrimeSieve built from a previous one
// 12·δ below shifts the previous roots by δ instead of computing residues.
// Held against a from-scratch sieve, the TS twin (which computes its own
// roots by BigInt residues) and the openssl CLI.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { native } from '../src/native.ts';
import { SafePrimeSieveJs } from '../src/prime/sieve.ts';
import { skipNativeNotice } from './helpers/backends.ts';
import { hasCommand } from './helpers/oracles.ts';

skipNativeNotice('derived deep sieve roots');
const n = native();

/** Odd primes from 5 below `limit`, by trial division. */
function oddPrimesFrom5(limit: number): number[] {
  const out: number[] = [];
  for (let c = 5; c < limit; c += 2) {
    let prime = true;
    for (let d = 3; d * d <= c; d += 2)
      if (c % d === 0) {
        prime = false;
        break;
      }
    if (prime) out.push(c);
  }
  return out;
}

describe('12⁻¹ mod r = (k·r + 1)/12 with k = (−r) mod 12', () => {
  it('holds for every prime from 5 below 2^16 and for primes near 2^28', () => {
    const rs = [...oddPrimesFrom5(1 << 16), 268435399, 268435367, 268435361, 268435331];
    for (const r of rs) {
      const k = (12 - (r % 12)) % 12;
      expect((k * r + 1) % 12).toBe(0);
      const inv = (k * r + 1) / 12;
      expect(inv).toBeLessThan(r);
      expect((12n * BigInt(inv)) % BigInt(r)).toBe(1n);
    }
  });
});

const BITS = 1024;
const LIMIT = 1 << 22;
/** A fixed 1024-bit start ≡ 11 (mod 12) (digits of π's hex expansion, so nothing of ours chose it). */
const BASE = (() => {
  const x = BigInt(`0x${'c90fdaa22168c234c4c6628b80dc1cd1'.repeat(8)}`);
  return x - (x % 12n) + 11n;
})();

/** Searches slices of `len` from 0 until one finds; every slice's result. */
function slices(s: { search(j0: number, j1: number): { found: number | null; tested: number } }, len: number) {
  const out: { found: number | null; tested: number }[] = [];
  for (let j0 = 0; j0 < 64 * len; j0 += len) {
    const r = s.search(j0, j0 + len);
    out.push({ found: r.found, tested: r.tested });
    if (r.found !== null) break;
  }
  return out;
}

describe.runIf(n !== null)('SafePrimeSieve derived from a previous one', () => {
  for (const delta of [3, 1000003, 2 ** 40 + 7, 2 ** 52 - 1]) {
    it(`δ = ${delta}: same j and tested counts as from scratch and as the TS twin`, () => {
      const start = BASE + 12n * BigInt(delta);
      const prev = new n!.SafePrimeSieve(BASE, LIMIT);
      prev.search(0, 16); // builds its deep roots
      const derived = new n!.SafePrimeSieve(start, LIMIT, undefined, 0, prev);
      expect(derived.derived).toBe(true);
      expect(() => prev.search(0, 16)).toThrow(/closed/);
      const scratch = new n!.SafePrimeSieve(start, LIMIT);
      expect(scratch.derived).toBe(false);
      const a = slices(derived, 8192);
      const b = slices(scratch, 8192);
      const c = slices(new SafePrimeSieveJs(start, LIMIT), 8192);
      expect(a).toEqual(b);
      // The TS twin tests one candidate at a time, so it counts the same
      // tests in every slice but the one that finds (native tests a batch).
      expect(a.map((x) => x.found)).toEqual(c.map((x) => x.found));
      expect(a.slice(0, -1)).toEqual(c.slice(0, -1));
      expect(a.at(-1)!.found).not.toBeNull();
      derived.close();
      scratch.close();
    });
  }

  it('a chain of derivations keeps matching from-scratch sieves', () => {
    let prev = new n!.SafePrimeSieve(BASE, LIMIT, undefined, 1);
    prev.search(0, 16);
    for (let i = 1; i <= 3; i++) {
      const start = BASE + 12n * BigInt(4 * BITS * BITS * i);
      const next = new n!.SafePrimeSieve(start, LIMIT, undefined, 1, prev);
      expect(next.derived).toBe(true);
      const scratch = new n!.SafePrimeSieve(start, LIMIT, undefined, 1);
      expect(slices(next, 1024)).toEqual(slices(scratch, 1024));
      scratch.close();
      prev = next;
    }
    prev.close();
  });

  it('a sieve that never searched passes its roots on, the two shifts added', () => {
    const prev = new n!.SafePrimeSieve(BASE, LIMIT);
    prev.search(0, 16);
    const step = 12n * BigInt(4 * BITS * BITS);
    const idle = new n!.SafePrimeSieve(BASE + step, LIMIT, undefined, 0, prev);
    const next = new n!.SafePrimeSieve(BASE + 3n * step, LIMIT, undefined, 0, idle);
    expect(next.derived).toBe(true);
    const scratch = new n!.SafePrimeSieve(BASE + 3n * step, LIMIT);
    expect(slices(next, 1024)).toEqual(slices(scratch, 1024));
    next.close();
    scratch.close();
  });

  it('a derived sieve stopped in its first strike remakes its roots from scratch', () => {
    const prev = new n!.SafePrimeSieve(BASE, LIMIT);
    prev.search(0, 16);
    const start = BASE + 12n * 1000003n;
    const s = new n!.SafePrimeSieve(start, LIMIT, undefined, 0, prev);
    const stop = new BigUint64Array(new SharedArrayBuffer(8));
    stop[0] = 1n;
    expect(s.search(0, 1024, stop).stopped).toBe(true);
    const scratch = new n!.SafePrimeSieve(start, LIMIT);
    expect(slices(s, 1024)).toEqual(slices(scratch, 1024));
    s.close();
    scratch.close();
  });

  it('computes from scratch (and still consumes previous) when the start is not 12·δ above', () => {
    for (const [start, limit, only23] of [
      [BASE - 12n, LIMIT, 0], // below
      [BASE, LIMIT, 0], // δ = 0
      [BASE + 12n * 2n ** 52n, LIMIT, 0], // δ too large (kMaxShift)
      [BASE + 12n, 1 << 21, 0], // another deep limit
      [BASE + 12n, LIMIT, 1], // another class filter
      [BASE + 12n, LIMIT, 2], // another class filter
      [(BASE << 64n) - ((BASE << 64n) % 12n) + 11n, LIMIT, 0], // another limb count
    ] as const) {
      const prev = new n!.SafePrimeSieve(BASE, LIMIT);
      prev.search(0, 16);
      const s = new n!.SafePrimeSieve(start, limit, undefined, only23, prev);
      expect(s.derived).toBe(false);
      expect(() => prev.search(0, 16)).toThrow(/closed/);
      const scratch = new n!.SafePrimeSieve(start, limit, undefined, only23);
      expect(s.search(0, 2048)).toEqual(scratch.search(0, 2048));
      s.close();
      scratch.close();
    }
  });

  it('refuses a previous that is not an open SafePrimeSieve', () => {
    expect(() => new n!.SafePrimeSieve(BASE, LIMIT, undefined, 0, {} as never)).toThrow(TypeError);
    const closed = new n!.SafePrimeSieve(BASE, LIMIT);
    closed.close();
    expect(() => new n!.SafePrimeSieve(BASE, LIMIT, undefined, 0, closed)).toThrow(/previous must be an open/);
  });

  it.runIf(hasCommand('openssl', ['version']))('the safe primes a derived sieve finds pass `openssl prime`', () => {
    const prev = new n!.SafePrimeSieve(BASE, LIMIT);
    prev.search(0, 16);
    const start = BASE + 12n * BigInt(4 * BITS * BITS);
    const s = new n!.SafePrimeSieve(start, LIMIT, undefined, 0, prev);
    const j = slices(s, 4096).at(-1)!.found;
    expect(j).not.toBeNull();
    const p = start + 12n * BigInt(j!);
    for (const x of [p, p >> 1n]) expect(spawnSync('openssl', ['prime', x.toString()], { encoding: 'utf8' }).stdout).toMatch(/is prime/);
    s.close();
  });
});
