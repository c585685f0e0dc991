/**
 * The TS proof-of-work kernel: the same walk as native/sha256/pow_search.cc,
 * on the same windows and groups, so it returns the same counter.
 *
 * Speed comes from what the canonical order makes constant: within a group
 * of 10^4 (or 10^3) candidates only one message word changes, so the rounds
 * before it and every schedule word that does not depend on it are computed
 * once per group, and the loop itself allocates nothing.
 */
import { K, expandSchedule, rounds } from '../hash/sha256.ts';
import type { PowTarget } from './target.ts';

// Fast-word values for candidate t of a group: 4 digits, or 3 digits then 0x80
// (the twin of native/sha256/pow_search.h's PowFastWords).
export const FOUR = new Int32Array(10000);
export const THREE = new Int32Array(1000);
for (let t = 0; t < 10000; t++) {
  FOUR[t] = ((48 + ((t / 1000) | 0)) << 24) | ((48 + (((t / 100) | 0) % 10)) << 16) | ((48 + (((t / 10) | 0) % 10)) << 8) | (48 + (t % 10));
}
for (let t = 0; t < 1000; t++) {
  THREE[t] = ((48 + ((t / 100) | 0)) << 24) | ((48 + (((t / 10) | 0) % 10)) << 16) | ((48 + (t % 10)) << 8) | 0x80;
}

type GroupSearch = (mid: Int32Array, pre: Int32Array, w: Int32Array, table: Int32Array, from: number, to: number, mask0: number) => number;

const ROTR = (x: string, n: number): string => `((${x} >>> ${n}) | (${x} << ${32 - n}))`;

/**
 * Builds the group search for one position of the changing word. Written out
 * round by round with the constants in place, because V8 keeps the 64
 * message words and the state in registers only when they are plain locals:
 * the same rounds as a loop over typed arrays run about 6x slower. Only 12
 * positions exist (fast = 2..13), and each is built once per process.
 */
function buildGroupSearch(fast: number): GroupSearch {
  const dep = new Uint8Array(64);
  dep[fast] = 1;
  for (let t = 16; t < 64; t++) dep[t] = dep[t - 2]! | dep[t - 7]! | dep[t - 15]! | dep[t - 16]!;
  const ref = (t: number): string => (dep[t] ? `w${t}` : `c${t}`);
  const src: string[] = ['const m0 = mid[0] | 0;', 'const p0 = pre[0] | 0, p1 = pre[1] | 0, p2 = pre[2] | 0, p3 = pre[3] | 0, p4 = pre[4] | 0, p5 = pre[5] | 0, p6 = pre[6] | 0, p7 = pre[7] | 0;'];
  // Constant words that feed changing ones, and W+K of constant rounds, are loaded once per group.
  const needed = new Set<number>();
  for (let t = 16; t < 64; t++) if (dep[t]) for (const s of [t - 2, t - 7, t - 15, t - 16]) if (!dep[s]) needed.add(s);
  for (const t of needed) src.push(`const c${t} = w[${t}] | 0;`);
  for (let r = fast; r < 64; r++) if (!dep[r]) src.push(`const k${r} = (w[${r}] + ${K[r]}) | 0;`);
  src.push('for (let t = from; t < to; t++) {', `const w${fast} = table[t] | 0;`);
  for (let t = 16; t < 64; t++) {
    if (!dep[t]) continue;
    const x = ref(t - 15);
    const y = ref(t - 2);
    src.push(`const w${t} = ((${ROTR(y, 17)} ^ ${ROTR(y, 19)} ^ (${y} >>> 10)) + ${ref(t - 7)} + (${ROTR(x, 7)} ^ ${ROTR(x, 18)} ^ (${x} >>> 3)) + ${ref(t - 16)}) | 0;`);
  }
  src.push('let a = p0, b = p1, c = p2, d = p3, e = p4, f = p5, g = p6, h = p7, t1 = 0, t2 = 0;');
  for (let r = fast; r < 64; r++) {
    const wk = dep[r] ? `(w${r} + ${K[r]})` : `k${r}`;
    src.push(
      `t1 = (h + (${ROTR('e', 6)} ^ ${ROTR('e', 11)} ^ ${ROTR('e', 25)}) + (g ^ (e & (f ^ g))) + ${wk}) | 0;`,
      `t2 = ((${ROTR('a', 2)} ^ ${ROTR('a', 13)} ^ ${ROTR('a', 22)}) + ((a & b) | (c & (a | b)))) | 0;`,
      'h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;',
    );
  }
  src.push('if (((a + m0) & mask0) === 0) return t;', '}', 'return -1;');
  return new Function('mid', 'pre', 'w', 'table', 'from', 'to', 'mask0', src.join('\n')) as GroupSearch;
}

const groupSearches = new Map<number, GroupSearch>();
const w = new Int32Array(64);
const pre = new Int32Array(8);
const full = new Int32Array(8);

/**
 * Lowest t in [from, to) whose first digest word h0 has (h0 & mask0) === 0,
 * or -1; the group differs only in word `fast`, whose value for t is table[t].
 */
function searchGroup(mid: Int32Array, block: Uint8Array, fast: number, table: Int32Array, from: number, to: number, mask0: number): number {
  for (let t = 0; t < 16; t++) {
    w[t] = (block[4 * t]! << 24) | (block[4 * t + 1]! << 16) | (block[4 * t + 2]! << 8) | block[4 * t + 3]!;
  }
  expandSchedule(w);
  pre.set(mid);
  rounds(pre, w, 0, fast);
  let search = groupSearches.get(fast);
  if (!search) groupSearches.set(fast, (search = buildGroupSearch(fast)));
  return search(mid, pre, w, table, from, to, mask0);
}

function meets(h: Int32Array, difficulty: number): boolean {
  for (let i = 0; i < difficulty; i++) {
    if ((h[i >> 3]! >>> (28 - 4 * (i & 7))) & 0xf) return false;
  }
  return true;
}

const blockCopy = new Uint8Array(64);

/**
 * Lowest k in [kStart, kEnd) that meets the target's difficulty, or null.
 * The range must lie inside one window (see PowTarget.window).
 */
export function searchRangeJs(target: PowTarget, kStart: bigint, kEnd: bigint): bigint | null {
  const { digitsEnd, digitsInBlock } = target.layout;
  const win = target.window(kStart);
  const mid = new Int32Array(win.mid.buffer, win.mid.byteOffset, 8);
  const group = digitsEnd % 4 === 0 ? 10000 : 1000;
  const bigGroup = BigInt(group);
  const table = group === 10000 ? FOUR : THREE;
  const fast = (digitsEnd - 1) >> 2;
  const d = target.difficulty;
  const mask0 = d >= 8 ? -1 : d === 0 ? 0 : ~0 << (32 - 4 * d);
  blockCopy.set(win.block);
  let k = kStart;
  while (k < kEnd) {
    const base = k - (k % bigGroup);
    const digits = base.toString().padStart(digitsInBlock, '0');
    for (let i = 0; i < digitsInBlock; i++) {
      blockCopy[digitsEnd - 1 - i] = digits.charCodeAt(digits.length - 1 - i);
    }
    let from = Number(k - base);
    const to = kEnd - base < bigGroup ? Number(kEnd - base) : group;
    while (from < to) {
      const t = searchGroup(mid, blockCopy, fast, table, from, to, mask0);
      if (t < 0) break;
      // Only the first digest word was checked; beyond 8 characters look at the rest.
      full.set(mid);
      w[fast] = table[t]!;
      expandSchedule(w);
      rounds(full, w, 0, 64);
      for (let i = 0; i < 8; i++) full[i] = (full[i]! + mid[i]!) | 0;
      if (meets(full, d)) return base + BigInt(t);
      from = t + 1;
    }
    k = base + BigInt(to);
  }
  return null;
}
