/** Milliseconds as a progress line shows them: 45s, 12m03s, 3h20m, 4d07h. */
export function formatEta(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d${String(Math.floor((s % 86400) / 3600)).padStart(2, '0')}h`;
}

/** Before this much of a phase's time, or of its work, its pace says too little to extrapolate. */
const MIN_ELAPSED_MS = 3000;
const MIN_WORK_DONE = 0.005;

/**
 * The time a phase has left, from the share of its work done so far and the
 * time that took (work measured by the caller, e.g. weighted by size), or
 * null while too little is done to say. A phase's first tick comes after
 * its first work is done, so its clock starts when the phase before it last
 * ticked, the first phase's when this was made.
 */
export class PhaseTimeLeft {
  private phase: string | null = null;
  private started: number;
  private lastTick: number;
  /** The last tick's estimate, for leftNow(). */
  private estimate: number | null = null;

  constructor(private readonly now: () => number = Date.now) {
    this.started = this.lastTick = now();
  }

  ms(phase: string, workDone: number): number | null {
    const at = this.now();
    if (phase !== this.phase) {
      this.phase = phase;
      this.started = this.lastTick;
    }
    this.lastTick = at;
    this.estimate = this.extrapolate(at - this.started, workDone);
    return this.estimate;
  }

  /**
   * The last tick's estimate less the time since that tick (never below 0),
   * or null without one: what a line redrawn between ticks shows, so that a
   * long piece of work counts down rather than standing still.
   */
  leftNow(): number | null {
    return this.estimate === null ? null : Math.max(0, this.estimate - (this.now() - this.lastTick));
  }

  private extrapolate(elapsed: number, workDone: number): number | null {
    if (workDone >= 1) return 0;
    if (elapsed < MIN_ELAPSED_MS || workDone < MIN_WORK_DONE) return null;
    return (elapsed * (1 - workDone)) / workDone;
  }
}

/**
 * The rate of a count that comes in steps (a search's tests, a slice at a
 * time), a second: measured from the first count reported, since the setup
 * before it is not the count's pace, and only when the count moves, since
 * between steps a rate falling with the clock would have the time left
 * climb. Null until MIN_ELAPSED_MS after that first count: the threads' first
 * steps land close together, and at 8192 bits their rate was 78 tests a
 * second against the 22 that followed.
 */
export class CountPace {
  private first: { count: number; at: number } | null = null;
  private counted = 0;
  private rate: number | null = null;

  constructor(private readonly now: () => number = () => performance.now()) {}

  perSecond(count: number): number | null {
    if (count === this.counted) return this.rate;
    const at = this.now();
    this.counted = count;
    if (this.first === null) this.first = { count, at };
    else if (at - this.first.at >= MIN_ELAPSED_MS) this.rate = ((count - this.first.count) * 1000) / (at - this.first.at);
    return this.rate;
  }
}
