// difficultyFor: the difficulty chosen against an exhaustive search over every
// difficulty (an independent way to the same nearest-in-ratio rule), the
// percentile against Python's arithmetic and a seeded simulation of the
// geometric distribution.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { difficultyFor } from '../src/pow/difficulty-for.ts';

/** The difficulty of unit whose mean time is nearest `seconds` as a ratio, found by trying every one. */
function exhaustive(seconds: number, rate: number, unit: 'hex' | 'bits'): number {
  const [steps, base] = unit === 'hex' ? [64, 16] : [256, 2];
  let best = 0;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (let d = 0; d <= steps; d++) {
    const distance = Math.abs(Math.log(base ** d / rate / seconds));
    // Strictly better only: a tie keeps the lower difficulty. A hair of slack for float rounding at exact ties.
    if (distance < bestDistance - 1e-12) [best, bestDistance] = [d, distance];
  }
  return best;
}

describe('difficultyFor', () => {
  it.each([
    [1, 1e6, 'hex', 5],
    [100, 1, 'hex', 2], // 100 s lies between 16 s and 256 s: 256 s is 2.56 times off, 16 s 6.25 times
    [60, 50e6, 'hex', 8],
    [60, 50e6, 'bits', 31], // 2^31 attempts take 42.9 s (1.40 times short), 2^32 85.9 s (1.43 times long)
    [1e-9, 1, 'hex', 0],
    [1e300, 1, 'hex', 64], // beyond a whole digest: the most there is
    [4, 1, 'bits', 2],
    [64, 1, 'hex', 1], // sqrt(16 · 256): a tie in ratio goes to the lower
    [0.25, 1, 'hex', 0], // 16^-0.5: a tie below the first step is still difficulty 0, not -1
    [Math.SQRT1_2, 1, 'bits', 0], // 2^-0.5, the same in bits
  ] as const)('seconds %d at rate %d in %s: %d, as an exhaustive search finds', (seconds, rate, unit, want) => {
    const r = difficultyFor({ seconds, rate, unit });
    expect(r.difficulty).toBe(want);
    expect(r.difficulty).toBe(exhaustive(seconds, rate, unit));
    expect(r.unit).toBe(unit);
  });

  it('agrees with the exhaustive search over a sweep of times and rates', () => {
    for (let e = -3; e <= 6; e += 0.37) {
      for (const rate of [1, 1234.5, 2e6, 9e7]) {
        for (const unit of ['hex', 'bits'] as const) expect(difficultyFor({ seconds: 10 ** e, rate, unit }).difficulty).toBe(exhaustive(10 ** e, rate, unit));
      }
    }
  });

  it('mean and 90th percentile as Python computes them (mean 16^d / rate; p90 ⌈ln 0.1 / ln(1 − p)⌉ / rate)', () => {
    const cases = [
      { seconds: 1, rate: 1e6, unit: 'hex' as const },
      { seconds: 0.5, rate: 3, unit: 'bits' as const },
      { seconds: 3600, rate: 5e7, unit: 'bits' as const },
      { seconds: 1e-9, rate: 1, unit: 'hex' as const },
    ];
    const results = cases.map((c) => difficultyFor(c));
    const py = spawnSync(
      'python3',
      ['-c', 'import json,sys,math\nfor bits,rate in json.load(sys.stdin):\n p=2.0**-bits\n n=1 if p==1 else math.ceil(math.log(0.1)/math.log1p(-p))\n print(json.dumps([2**bits/rate, n/rate]))'],
      {
        input: JSON.stringify(results.map((r, i) => [r.difficulty * (r.unit === 'hex' ? 4 : 1), cases[i]!.rate])),
        encoding: 'utf8',
      },
    );
    expect(py.status, py.stderr).toBe(0);
    const want = py.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as [number, number]);
    results.forEach((r, i) => {
      expect(r.expectedSeconds).toBeCloseTo(want[i]![0], 9);
      expect(r.p90Seconds).toBeCloseTo(want[i]![1], 9);
    });
    // The well-known shape: the 90th percentile of a rare event is ln 10 ≈ 2.303 times the mean.
    expect(results[2]!.p90Seconds / results[2]!.expectedSeconds).toBeCloseTo(Math.LN10, 5);
  });

  it('the 90th percentile matches a seeded simulation of the solver (p = 1/16: 36 attempts)', () => {
    const r = difficultyFor({ seconds: 16, rate: 1 });
    expect(r).toMatchObject({ difficulty: 1, expectedSeconds: 16, p90Seconds: 36 });
    // xorshift32, seeded: the same draws every run.
    let x = 2463534242;
    const next = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
    const runs = 200_000;
    const attempts: number[] = [];
    for (let i = 0; i < runs; i++) {
      let n = 1;
      while (next() >= 1 / 16) n++;
      attempts.push(n);
    }
    attempts.sort((a, b) => a - b);
    const within = (n: number) => attempts.filter((a) => a <= n).length / runs;
    expect(within(35)).toBeLessThan(0.9);
    expect(within(36)).toBeGreaterThanOrEqual(0.9);
  });

  it('refuses bad arguments with TypeError/RangeError naming them', () => {
    expect(() => difficultyFor({ seconds: 0, rate: 1 })).toThrow(/seconds must be a finite number above 0/);
    expect(() => difficultyFor({ seconds: 1, rate: Number.POSITIVE_INFINITY })).toThrow(RangeError);
    expect(() => difficultyFor({ seconds: '1', rate: 1 } as never)).toThrow(TypeError);
    expect(() => difficultyFor({ seconds: 1, rate: 1, unit: 'digits' } as never)).toThrow(/unit must be one of/);
    expect(() => difficultyFor({ seconds: 1, rate: 1, rates: 2 } as never)).toThrow(/rates is not an option/);
    expect(() => difficultyFor(undefined as never)).toThrow(TypeError);
  });
});
