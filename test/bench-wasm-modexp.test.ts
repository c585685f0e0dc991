// The bench's WebAssembly-against-BigInt modexp ratios (bench/wasm-modexp.ts):
// how a figure is made from paired runs, and a real quick run's shape.
import { describe, expect, it } from 'vitest';
import { pairedMedians, pairsFor, runWasmModexpBench } from '../bench/wasm-modexp.ts';

describe('the WASM modexp ratio', () => {
  it('is the median of the pair ratios, not a ratio of medians: a burst in one pair moves one ratio', () => {
    // Pair ratios 2, 2, 2 and 0.25 (a burst during the WASM call), 4 (one during BigInt's).
    const m = pairedMedians([
      { bigint: 4, wasm: 2 },
      { bigint: 4, wasm: 2 },
      { bigint: 6, wasm: 3 },
      { bigint: 4, wasm: 16 },
      { bigint: 40, wasm: 10 },
    ]);
    expect(m.ratio).toBe(2);
    expect(m.bigint).toEqual([4, 4, 6, 4, 40]);
    expect(m.wasm).toEqual([2, 2, 3, 16, 10]);
    expect(pairedMedians([]).ratio).toBeNull();
  });

  it('takes at least five pairs at every size (three in a quick run), and fewer where BigInt takes longer', () => {
    expect(pairsFor(8192, false)).toBe(5);
    expect(pairsFor(8192, true)).toBe(3);
    expect(pairsFor(1024, false)).toBeGreaterThan(pairsFor(4096, false));
    expect(pairsFor(1024, true)).toBeLessThanOrEqual(9);
  });

  it('a quick run: both kinds at 1024 and 2048 bits, each a goal of at least 1 × and rows of times in ms', () => {
    const steps: string[] = [];
    const r = runWasmModexpBench({ quick: true, onStep: (s) => steps.push(s) });
    expect(r.skipped).toEqual([]);
    expect(steps).toEqual(['modexp 1024 bits, WebAssembly against BigInt', 'modexp 2048 bits, WebAssembly against BigInt']);
    expect(r.targets.map((t) => t.what.replace(/ \(.*/, ''))).toEqual([
      '1024-bit modexp, BigInt / WASM',
      '1024-bit modexp base-2, BigInt / WASM',
      '2048-bit modexp, BigInt / WASM',
      '2048-bit modexp base-2, BigInt / WASM',
    ]);
    for (const t of r.targets) {
      expect(t).toMatchObject({ unit: '×', goal: 1, direction: 'min' });
      expect(t.value).toBeGreaterThan(0);
      expect(t.met).toBe(t.value! >= 1);
    }
    expect(r.rows.map((x) => x.what)).toEqual([1024, 2048].flatMap((b) => ['wasm', 'TS BigInt', 'wasm base-2', 'TS BigInt base-2'].map((s) => `modexp ${b} bits, ${s}`)));
    for (const x of r.rows) expect(x).toMatchObject({ suite: 'prime', chart: 'modexp', unit: 'ms', runs: expect.any(Number) });
    expect(r.rows.every((x) => x.value! > 0 && x.runs >= 3)).toBe(true);
  });
});
