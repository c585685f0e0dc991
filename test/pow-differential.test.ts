import { afterAll, describe, expect, it } from 'vitest';
import { backendInfo, closePool, solvePow, verifyPow } from '../src/index.ts';
import { native } from '../src/native.ts';
import { candidate, powLayout } from '../src/pow/order.ts';
import { PowTarget } from '../src/pow/target.ts';
import { searchRangeJs } from '../src/pow/kernel.ts';
import { nodeSha256Hex, rng } from './helpers/oracles.ts';
import { hasNative, skipNativeNotice } from './helpers/backends.ts';

skipNativeNotice('native-vs-TS comparisons');

afterAll(() => closePool());

const next = rng(2026);
const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+=';
function randomNonce(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)];
  return s;
}

// 8 cases for every nonce length mod 64 (512 in all), difficulties 0..5 in turn.
// An empty nonce is refused (below), so length 0 mod 64 is drawn as 64 or 128.
const cases = Array.from({ length: 512 }, (_, i) => ({
  nonce: randomNonce((i % 64) + 64 * Math.floor(next() * 3) || 64),
  difficulty: i % 6,
}));
// Multi-byte UTF-8: the order is defined on the nonce's bytes, not its characters.
cases.push({ nonce: 'é€😀 unicode nonce', difficulty: 4 }, { nonce: 'x'.repeat(1000), difficulty: 4 });

const oracleMeets = (nonce: string, s: string, d: number): boolean => nodeSha256Hex(nonce + s).startsWith('0'.repeat(d));

describe('PoW: native, TS and node:crypto agree', () => {
  it('an empty nonce (an unset variable, most likely) is refused, not solved', async () => {
    await expect(solvePow({ nonce: '', difficulty: 3 })).rejects.toSatisfy((e) => e instanceof RangeError && e.message === 'nonce must not be empty (an unset variable?)');
    expect(() => verifyPow('', 3, '1')).toThrow(RangeError);
  });

  // Hundreds of TS and native searches: minutes on a busy shared machine.
  it(`${cases.length} random challenges: same lowest solution on every backend and kernel`, { timeout: 600_000 }, async () => {
    for (const { nonce, difficulty } of cases) {
      const js = await solvePow({ nonce, difficulty }, { backend: 'js', threads: 1 });
      const layout = powLayout(Buffer.byteLength(nonce));
      expect(js.solution).toBe(candidate(layout, js.counter));
      expect(js.solution).toMatch(/^[0-9]{1,32}$/);
      expect(oracleMeets(nonce, js.solution, difficulty)).toBe(true);
      if (difficulty <= 3) {
        // Lowest-first: every earlier candidate fails, per node:crypto.
        for (let k = 0n; k < js.counter; k++) expect(oracleMeets(nonce, candidate(layout, k), difficulty)).toBe(false);
      }
      if (!hasNative) continue;
      const nat = await solvePow({ nonce, difficulty }, { backend: 'native', threads: 1 });
      expect(nat.solution).toBe(js.solution);
      const target = new PowTarget(nonce, difficulty);
      const w = target.window(0n);
      for (const kernel of backendInfo().kernels) {
        const k = native()!.powSearch(w.mid, w.block, layout.digitsEnd, layout.digitsInBlock, difficulty, 0n, js.counter + 1n, kernel);
        expect(k, `${kernel} on ${JSON.stringify(nonce)} d=${difficulty}`).toBe(js.counter);
      }
    }
  });

  it('1 to 4 threads return the same solution as 1 thread, native and TS', async () => {
    const sample = cases.filter((_, i) => i % 16 === 5 || i % 16 === 10).slice(0, 24);
    for (const { nonce, difficulty } of sample) {
      const ref = await solvePow({ nonce, difficulty }, { backend: 'js', threads: 1 });
      for (const threads of [2, 3, 4]) {
        const js = await solvePow({ nonce, difficulty }, { backend: 'js', threads });
        expect(js.counter).toBe(ref.counter);
        if (hasNative) {
          const nat = await solvePow({ nonce, difficulty }, { backend: 'native', threads });
          expect(nat.counter).toBe(ref.counter);
        }
      }
    }
  });

  it.runIf(hasNative)('finds a difficulty-6 solution on all threads that node:crypto confirms is the lowest of its chunk set', async () => {
    const nonce = 'differential-d6';
    const one = await solvePow({ nonce, difficulty: 6 }, { backend: 'native', threads: 1 });
    const all = await solvePow({ nonce, difficulty: 6 }, { backend: 'native' });
    expect(all.solution).toBe(one.solution);
    expect(oracleMeets(nonce, all.solution, 6)).toBe(true);
    expect(all.attempts).toBeGreaterThanOrEqual(Number(all.counter) + 1);
  });

  // Candidates whose digest starts with exactly 8 '0's (the 9th is not 0): the
  // kernels see a zero first word and must consult the rest of the digest.
  // node:crypto confirms each one below before it is used.
  it.each([
    ['x'.repeat(43), 7272679225n],
    ['deep-check-nonce', 6477167639n],
  ])('difficulty 8 and 9 around an 8-zero candidate of %s', (nonce, k) => {
    const layout = powLayout(Buffer.byteLength(nonce));
    const hex = nodeSha256Hex(nonce + candidate(layout, k));
    expect(hex.startsWith('00000000')).toBe(true);
    expect(hex[8]).not.toBe('0');
    const from = k - 3000n;
    const to = k + 3000n;
    const lowest = (d: number): bigint | null => {
      for (let j = from; j < to; j++) if (oracleMeets(nonce, candidate(layout, j), d)) return j;
      return null;
    };
    for (const d of [8, 9]) {
      const expected = lowest(d);
      const target = new PowTarget(nonce, d);
      expect(searchRangeJs(target, from, to)).toBe(expected);
      if (!hasNative) continue;
      const w = target.window(from);
      for (const kernel of backendInfo().kernels) {
        expect(native()!.powSearch(w.mid, w.block, layout.digitsEnd, layout.digitsInBlock, d, from, to, kernel), kernel).toBe(expected);
      }
    }
  });
});

// Where the candidates' digits change length or leave the final block: both
// sides of 10^3 and 10^4 (the fast word's groups), 10^8, the window (higher
// digits move into the state before the final block) and the order's end,
// for every nonce length mod 64, twice (lengths 0–127). node:crypto scans
// each range; the TS kernel and every native kernel must return its answer.
describe('PoW: both sides of each digit-count boundary, every nonce length mod 64', () => {
  const SPAN = 300n;
  const lowest = (nonce: string, layout: ReturnType<typeof powLayout>, from: bigint, to: bigint, d: number): bigint | null => {
    for (let j = from; j < to; j++) if (oracleMeets(nonce, candidate(layout, j), d)) return j;
    return null;
  };
  it.each(Array.from({ length: 128 }, (_, L) => L))('nonce length %i', (L) => {
    const nonce = randomNonce(L);
    const layout = powLayout(L);
    const window = 10n ** BigInt(layout.digitsInBlock);
    const edges = [10n ** 3n, 10n ** 4n, 10n ** 8n, window, layout.limit].filter((b) => b <= layout.limit);
    const ranges: [bigint, bigint][] = [];
    for (const b of edges) {
      ranges.push([b - SPAN, b]);
      if (b + SPAN <= layout.limit) ranges.push([b, b + SPAN]);
    }
    for (const [from, to] of ranges) {
      const d = 2;
      const expected = lowest(nonce, layout, from, to, d);
      const target = new PowTarget(nonce, d);
      expect(searchRangeJs(target, from, to), `ts [${from}, ${to})`).toBe(expected);
      if (!hasNative) continue;
      const w = target.window(from);
      for (const kernel of backendInfo().kernels) {
        const got = native()!.powSearch(w.mid, w.block, layout.digitsEnd, layout.digitsInBlock, d, from, to, kernel);
        expect(got, `${kernel} [${from}, ${to})`).toBe(expected);
      }
    }
  });
});
