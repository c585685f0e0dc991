/**
 * Whether a run's figures can be judged against the goals: a machine busy
 * with other work before the run started (its runnable tasks), or figures whose
 * repeated runs disagree widely, make a short ratio say more about the
 * neighbours than about powprime. Such a run is reported as not judged, not
 * as a goal missed.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchNoise, BenchRow, BenchTarget } from './schema.ts';

/** Repeated runs of one figure further apart than this (max − min over the median) are noise. */
export const MAX_SPREAD = 0.25;
/** Others' load (loadNow) above this share of the cores before the run: others are using them. */
export const MAX_LOAD_SHARE = 0.5;

/**
 * Others' work on the CPUs just before the run: on Linux the runnable tasks
 * besides this process (procs_running in /proc/stat), averaged over `ms`;
 * elsewhere the 1-minute load average (0 where there is none, as on Windows).
 * Not the load average on Linux: it fades over minutes, so the compile of
 * the `npm install` just before a first `bench` would count as others' work
 * for a minute or two after it ended.
 */
export async function loadNow(ms = 2000): Promise<number> {
  const samples: number[] = [];
  for (let t = 0; t < ms; t += 100) {
    const running = procsRunning();
    if (running === null) return loadavg()[0] ?? 0;
    // This thread is running while it reads the count.
    samples.push(Math.max(0, running - 1));
    await sleep(100);
  }
  return samples.reduce((a, b) => a + b, 0) / samples.length;
}

function procsRunning(): number | null {
  try {
    const m = /^procs_running (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Relative spread of a row's repeated runs, or null where it says nothing
 * about the machine: fewer than 3 runs; rows whose runs do different work
 * (a safe prime's time depends on where the search starts, and openssl
 * dhparam's varies tenfold between runs); runs under a millisecond, which one
 * context switch doubles on any machine.
 */
export function rowSpread(r: BenchRow): number | null {
  if (r.chart !== 'pow-rate' && r.chart !== 'modexp') return null;
  if (r.chart === 'modexp' && (r.median ?? 0) < 1) return null;
  if (r.runs < 3 || r.min === null || r.max === null || r.median === null || r.median <= 0) return null;
  return (r.max - r.min) / r.median;
}

/**
 * `coreRates`: the per-core probes taken before and after the run
 * (bench/cores.ts), kept with the result and printed beside the verdict but
 * not part of it: cores apart can be the hardware's design, which a rerun on
 * a quiet machine would not change.
 */
export function judgeNoise(rows: readonly BenchRow[], loadBefore: number, cores: number, coreRates?: BenchNoise['coreRates']): BenchNoise {
  let worst: BenchNoise['worstSpread'] = null;
  for (const r of rows) {
    const s = rowSpread(r);
    if (s !== null && (worst === null || s > worst.spread)) worst = { what: r.what, spread: s };
  }
  const reasons: string[] = [];
  if (loadBefore > MAX_LOAD_SHARE * cores) reasons.push(`others' load ${loadBefore.toFixed(2)} on ${cores} cores before the run`);
  if (worst && worst.spread > MAX_SPREAD) reasons.push(`repeated runs of "${worst.what}" differed by ${Math.round(worst.spread * 100)}%`);
  return { loadBefore, cores, worstSpread: worst, ...(coreRates ? { coreRates } : {}), busy: reasons.length > 0, reasons };
}

/**
 * Each target's verdict: met, not met, not measured, or — for a goal missed
 * on a noisy machine — not judged, with the reason. A goal met on a busy
 * machine stays met: other work only slows a run down. A counted figure
 * (Fermat tests a prime) is judged whatever the load: the load cannot change it.
 */
export function withVerdicts(targets: readonly BenchTarget[], noise: BenchNoise): BenchTarget[] {
  return targets.map((t) => {
    if (t.met === null) return { ...t, verdict: 'not measured' as const };
    if (t.met) return { ...t, verdict: 'met' as const };
    if (noise.busy && !t.counted) return { ...t, verdict: 'not judged' as const, why: `the machine was busy (${noise.reasons.join('; ')})` };
    return { ...t, verdict: 'not met' as const };
  });
}
