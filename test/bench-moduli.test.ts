// The moduli bench's arithmetic (the shipped-file estimate between measured
// sizes) and its table in the report, on known figures.
import { describe, expect, it } from 'vitest';
import { interpolate, moduliPlan } from '../bench/moduli.ts';
import { formatReport } from '../bench/report.ts';
import { SCHEMA_VERSION, type BenchResult } from '../bench/schema.ts';

describe('moduli bench', () => {
  it('estimates a size between two measured ones on the power law through them, and the measured ones as measured', () => {
    const measured = new Map([
      [2048, 1],
      [3072, 3.375],
      [8192, 64],
    ]);
    // 2048 → 3072 is a cube (1.5³ = 3.375), and so is 3072 → 8192 here: 4096 bits costs 2³.
    expect(interpolate(measured, 4096)).toBeCloseTo(8, 9);
    expect(interpolate(measured, 6144)).toBeCloseTo(27, 9);
    expect(interpolate(measured, 2048)).toBe(1);
    expect(interpolate(measured, 8192)).toBe(64);
    // Below or above every measured size: the nearest one's figure, not a guess beyond the data.
    expect(interpolate(new Map([[2048, 2]]), 8192)).toBe(2);
  });

  it("measures the full run's sizes, or only those asked for, each as the full run would", () => {
    expect(moduliPlan(true)).toEqual([{ bits: 2048, count: 24, ssh: 8 }]);
    expect(moduliPlan(false).map((p) => [p.bits, p.count])).toEqual([
      [2048, 100],
      [3072, 24],
      [8192, 8],
    ]);
    // In size order; a size the full run lacks is eight groups without ssh-keygen, as 8192 is.
    expect(moduliPlan(false, [8192, 4096, 3072])).toEqual([
      { bits: 3072, count: 24, ssh: 8 },
      { bits: 4096, count: 8, ssh: 0 },
      { bits: 8192, count: 8, ssh: 0 },
    ]);
  });

  it('has a table of its own in the report, sizes down and series across', () => {
    const r: BenchResult = {
      schema: SCHEMA_VERSION,
      quick: true,
      machine: {
        cpu: 'Test CPU',
        cores: 2,
        platform: 'linux-x64',
        features: [],
        kernels: { sha256: 'x', bignum: 'y' },
        node: 'v20.19.0',
        openssl: null,
        powprime: '0.1.0',
        date: '2026-11-28T00:00:00.000Z',
      },
      rows: [
        {
          suite: 'moduli',
          chart: 'moduli',
          series: 'powprime core s',
          bits: 2048,
          what: 'moduli 2048 bits, powprime core s a group',
          value: 0.5,
          unit: 's',
          runs: 24,
          min: 0.5,
          median: 0.5,
          max: 0.5,
        },
        {
          suite: 'moduli',
          chart: 'moduli',
          series: 'ssh-keygen core s',
          bits: 2048,
          what: 'moduli 2048 bits, ssh-keygen core s a usable group',
          value: 10,
          unit: 's',
          runs: 1,
          min: 10,
          median: 10,
          max: 10,
        },
      ],
      targets: [],
      skipped: [],
      noise: { busy: false, reasons: [] },
    } as unknown as BenchResult;
    const text = formatReport(r, undefined, { verbose: true });
    expect(text).toContain('OpenSSH moduli: core time a usable group');
    expect(text).toMatch(/\| bits \| powprime core s \| ssh-keygen core s \|/);
    expect(text).toMatch(/\| 2048 \| 0\.500\s*s? \| 10\.0+\s*s? \|/);
  });
});
