/** What `screenModuli` tells its onProgress, and how it counts a phase's work. */
import type { Candidate } from './screen-lines.ts';

export interface ScreenModuliProgress {
  /** 'sieving': base-2 Fermat tests on q, then p, of the type-4 candidates; 'checking': the full check of what passed, and of the type-2 lines. */
  phase: 'sieving' | 'checking';
  /** Numbers done in this phase, of `total`. */
  done: number;
  total: number;
  /**
   * The share of this phase's work done, 0 to 1, each number weighted by the
   * cube of its size (a modular exponentiation's cost): a file of mixed sizes,
   * such as the system's, spends most of its time on its last, largest lines,
   * so `done / total` would promise too early an end.
   */
  workDone: number;
}

/** A number's share of a phase's work: its size cubed, in units of 1024 bits (the size field, within a bit of its length as read). */
function work(c: Candidate): number {
  return ((c.entry.size + 1) / 1024) ** 3;
}

/** Counts a phase's numbers and their work, and tells onProgress. */
export class PhaseProgress {
  private done = 0;
  private doneWork = 0;
  private readonly total: number;
  private readonly totalWork: number;

  /** `each`: the numbers each candidate brings to the phase (q and p when sieving). */
  constructor(
    private readonly phase: ScreenModuliProgress['phase'],
    cs: readonly Candidate[],
    each: number,
    private readonly onProgress: ((p: ScreenModuliProgress) => void) | undefined,
  ) {
    this.total = each * cs.length;
    this.totalWork = each * cs.reduce((sum, c) => sum + work(c), 0);
  }

  add(cs: readonly Candidate[]): void {
    if (!cs.length) return;
    this.done += cs.length;
    for (const c of cs) this.doneWork += work(c);
    const workDone = this.totalWork > 0 ? Math.min(1, this.doneWork / this.totalWork) : 1;
    this.onProgress?.({ phase: this.phase, done: this.done, total: this.total, workDone });
  }
}
