/**
 * The WebAssembly Montgomery kernel against BigInt, in the same run: base^e
 * and 2^e mod a random odd m of each size, e = m − 1, as the sieve's Fermat
 * tests do on its candidates (a prime of 8192 bits takes long to generate). The two
 * sides alternate call by call and each pair gives a ratio; the figure is the
 * median ratio, so a burst of other work lands in one pair rather than on one
 * side. The TS prime backend uses the kernel only at sizes where its own
 * timing at first use finds it faster (src/prime/modexp.ts); these ratios say
 * how much faster, or slower, it is.
 *
 * Run on its own: `npx tsx bench/wasm-modexp.ts [--quick]`.
 */
import { randomBytes } from 'node:crypto';
import { modPow, pow2Mod } from '../src/prime/bigint.ts';
import { wasmModexp, wasmModexpError } from '../src/prime/wasm-bignum.ts';
import { spread, target, type BenchRow, type BenchTarget } from './schema.ts';

const FULL_BITS = [1024, 2048, 3072, 4096, 8192];
const QUICK_BITS = [1024, 2048];

/** Ratios at or above this mean the kernel is the faster here. */
const WASM_MODEXP_GOAL = 1;

export interface WasmModexpBench {
  rows: BenchRow[];
  targets: BenchTarget[];
  skipped: string[];
}

/** Pairs a size gets: about two seconds of BigInt at each, at least five (three in a quick run). */
export function pairsFor(bits: number, quick: boolean): number {
  const bigintMs = 2.6 * (bits / 1024) ** 2.6; // BigInt base^e at 1024 bits: about 2.6 ms, ×6 a doubling
  return Math.max(quick ? 3 : 5, Math.min(quick ? 9 : 31, Math.round((quick ? 500 : 2000) / bigintMs)));
}

function ms(f: () => unknown): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

/** Medians of each side's times and of the pair ratios (BigInt / WASM: above 1, the kernel is faster). */
export function pairedMedians(pairs: { bigint: number; wasm: number }[]): { bigint: number[]; wasm: number[]; ratio: number | null } {
  return { bigint: pairs.map((p) => p.bigint), wasm: pairs.map((p) => p.wasm), ratio: spread(pairs.map((p) => p.bigint / p.wasm)).median };
}

export function runWasmModexpBench(opts: { quick: boolean; onStep?: (name: string) => void }): WasmModexpBench {
  const k = wasmModexp();
  if (!k) return { rows: [], targets: [], skipped: [`wasm modexp: ${wasmModexpError()}`] };
  const rows: BenchRow[] = [];
  const targets: BenchTarget[] = [];
  const row = (series: string, bits: number, xs: number[], note: string): void => {
    const sp = spread(xs);
    rows.push({ suite: 'prime', chart: 'modexp', series, bits, what: `modexp ${bits} bits, ${series}`, value: sp.median, unit: 'ms', ...sp, note });
  };
  for (const bits of opts.quick ? QUICK_BITS : FULL_BITS) {
    opts.onStep?.(`modexp ${bits} bits, WebAssembly against BigInt`);
    const p = BigInt(`0x${randomBytes(bits / 8).toString('hex')}`) | (1n << BigInt(bits - 1)) | 1n;
    const e = p - 1n;
    const b = (p * 7n) / 13n;
    // One call each first: the engine compiles the kernel's hot functions on their first calls.
    k.modPow(b, 65537n, p);
    const pairs = pairsFor(bits, opts.quick);
    for (const [kind, big, wasm] of [
      ['', () => modPow(b, e, p), () => k.modPow(b, e, p)],
      [' base-2', () => pow2Mod(e, p), () => k.pow2Mod(e, p)],
    ] as const) {
      const m = pairedMedians(Array.from({ length: pairs }, (_, i) => (i % 2 ? { wasm: ms(wasm), bigint: ms(big) } : { bigint: ms(big), wasm: ms(wasm) })));
      const note = `${pairs} pairs, the sides alternating; BigInt / WASM median of the pair ratios ${m.ratio?.toFixed(2)} ×`;
      row(`wasm${kind}`, bits, m.wasm, note);
      row(`TS BigInt${kind}`, bits, m.bigint, note);
      targets.push(target(`${bits}-bit modexp${kind}, BigInt / WASM (median of ${pairs} paired runs)`, m.ratio, '×', WASM_MODEXP_GOAL, 'min'));
    }
  }
  return { rows, targets, skipped: [] };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = runWasmModexpBench({ quick: process.argv.includes('--quick'), onStep: (s) => process.stderr.write(`${s}\n`) });
  for (const t of r.targets) console.log(`${t.what}: ${t.value?.toFixed(2)} ×`);
  for (const s of r.skipped) console.log(`skipped: ${s}`);
}
