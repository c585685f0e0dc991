// How --progress=json writes numbers (src/cli/progress-mode.ts): integers as they are, others to
// three decimals, and below 1 to three significant digits, so a slow rate is not written as 0.
import { describe, expect, it } from 'vitest';
import { tidy } from '../src/cli/progress-mode.ts';

describe('tidy', () => {
  it.each([
    [20_656, 20_656],
    [21.81234, 21.812],
    [77.8181, 77.818],
    // One 8192-bit group in 3,589 s: 0.000279 a second, not 0.
    [1 / 3589, 0.000279],
    [0.5, 0.5],
    [-0.0012345, -0.00123],
  ])('%d is written as %d', (v, written) => expect(tidy(v)).toBe(written));

  it('leaves what is not finite to the caller (written as null)', () => {
    expect(tidy(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
  });
});
