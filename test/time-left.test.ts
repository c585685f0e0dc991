// The time a phase has left (src/cli/time-left.ts) and the screen's status line, on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { screenStatus } from '../src/cli/moduli-screen.ts';
import { testsText } from '../src/cli/search-progress.ts';
import { CountPace, PhaseTimeLeft, formatEta } from '../src/cli/time-left.ts';

describe('PhaseTimeLeft', () => {
  it('extrapolates the work done at its pace so far, and restarts with a new phase', () => {
    let now = 1_000_000;
    const left = new PhaseTimeLeft(() => now);
    expect(left.ms('sieving', 0)).toBeNull();
    now += 10_000;
    // A tenth done in 10 s: 90 s to go.
    expect(left.ms('sieving', 0.1)).toBeCloseTo(90_000, 6);
    now += 30_000;
    expect(left.ms('sieving', 0.5)).toBeCloseTo(40_000, 6);
    expect(left.ms('sieving', 1)).toBe(0);
    // The next phase's clock starts at its first tick.
    expect(left.ms('checking', 0.2)).toBeNull();
    now += 5_000;
    expect(left.ms('checking', 0.25)).toBeCloseTo(15_000, 6);
  });

  it("counts a phase's time from the last tick of the phase before, or from the start: its first tick already cost time", () => {
    let now = 0;
    const left = new PhaseTimeLeft(() => now);
    // The first of three equal pieces ends at 6 s: 12 s to go, not nothing.
    now = 6_000;
    expect(left.ms('checking', 1 / 3)).toBeCloseTo(12_000, 6);
    now = 10_000;
    left.ms('checking', 1);
    // The next phase began with that last tick.
    now = 14_000;
    expect(left.ms('writing', 0.5)).toBeCloseTo(4_000, 6);
  });

  it('says nothing while too little time has passed or too little work is done', () => {
    let now = 0;
    const left = new PhaseTimeLeft(() => now);
    left.ms('checking', 0);
    now = 2_000;
    expect(left.ms('checking', 0.5)).toBeNull();
    now = 60_000;
    expect(left.ms('checking', 0.001)).toBeNull();
    expect(left.ms('checking', 0.01)).toBeCloseTo(5_940_000, 3);
  });
});

describe('PhaseTimeLeft.leftNow', () => {
  it("counts the last tick's estimate down between ticks, to 0 and not below, and says nothing without one", () => {
    let now = 0;
    const left = new PhaseTimeLeft(() => now);
    expect(left.leftNow()).toBeNull();
    now = 10_000;
    expect(left.ms('checking', 0.5)).toBeCloseTo(10_000, 6);
    now = 13_000;
    expect(left.leftNow()).toBeCloseTo(7_000, 6);
    now = 25_000;
    expect(left.leftNow()).toBe(0);
    // The next tick's estimate replaces it: 0.6 done in 25 s leaves 16.7 s.
    expect(left.ms('checking', 0.6)).toBeCloseTo(25_000 / 1.5, 6);
    now = 26_000;
    expect(left.leftNow()).toBeCloseTo(25_000 / 1.5 - 1_000, 6);
    // A new phase with too little done has no estimate to count down.
    left.ms('writing', 0);
    expect(left.leftNow()).toBeNull();
  });
});

describe('screenStatus', () => {
  it('shows the time left, and once a countdown has run out says the check is taking longer, not "0s left"', () => {
    expect(screenStatus('checking', 3, 20, null)).toBe('checking 3/20');
    expect(screenStatus('checking', 3, 20, 23_000)).toBe('checking 3/20, ≈ 23s left');
    expect(screenStatus('sieving', 1, 4, 65_000)).toBe('sieving 1/4, ≈ 1m05s left sieving');
    expect(screenStatus('checking', 3, 20, 4_000, true)).toBe('checking 3/20, ≈ 4s left');
    expect(screenStatus('checking', 3, 20, 0, true)).toBe('checking 3/20, taking longer than estimated');
    // A phase done is not an estimate run out, while the next phase's first tick is awaited too.
    expect(screenStatus('checking', 20, 20, 0)).toBe('checking 20/20, ≈ 0s left');
    expect(screenStatus('sieving', 4, 4, 0, true)).toBe('sieving 4/4, ≈ 0s left sieving');
  });
});

describe('CountPace', () => {
  it('measures from the first count, only when the count moves, and not before 3 s have passed since it', () => {
    let now = 0;
    const pace = new CountPace(() => now);
    // The sieve's setup: nothing counted for 30 s, no rate.
    now = 30_000;
    expect(pace.perSecond(0)).toBeNull();
    // The two threads' first steps half a second apart (as at 8192 bits: 34 tests, then 73) make no rate yet.
    expect(pace.perSecond(34)).toBeNull();
    now = 30_500;
    expect(pace.perSecond(73)).toBeNull();
    // 132 tests in 6 s after the first count: 22 a second, the setup not counted.
    now = 36_000;
    expect(pace.perSecond(166)).toBeCloseTo(22, 6);
    // Between steps the rate stands, however long the wait.
    now = 50_000;
    expect(pace.perSecond(166)).toBeCloseTo(22, 6);
    now = 54_000;
    expect(pace.perSecond(562)).toBeCloseTo(22, 6);
  });
});

describe('testsText', () => {
  it('says the run is starting, and for how long, until the first tests are counted; then the tests run and left', () => {
    expect(testsText(0, 20_656, null, 35_000)).toBe('starting (35s), expected 20.7k tests');
    expect(testsText(166, 20_656, null, 41_000)).toBe('166 tests run, expected 20.7k more');
    expect(testsText(12_345, 20_656, 938_000, 600_000)).toBe('12.3k tests run, expected 20.7k more ≈ 15m38s');
  });
});

describe('formatEta', () => {
  it.each([
    [44_600, '45s'],
    [723_000, '12m03s'],
    [12_000_000, '3h20m'],
    [371_000_000, '4d07h'],
  ])('%d ms is %s', (ms, text) => expect(formatEta(ms)).toBe(text));
});
