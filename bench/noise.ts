/**
 * Whether a run's figures can be judged against the goals: a machine busy
 * with other work before the run started (its runnable tasks) or during it
 * (the CPU time others took), or figures whose
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

/** The machine's busy CPU time and this process's own (its threads and waited-for children), in clock ticks, at one moment. */
export interface CpuMark {
  machine: number;
  own: number;
  atMs: number;
}

/** Linux's clock tick for /proc's CPU times (USER_HZ: 100 on every Linux ABI). */
const TICKS_PER_SECOND = 100;

/** A CpuMark from /proc (Linux), or null where there is none. */
export function cpuMark(): CpuMark | null {
  try {
    // cpu  user nice system idle iowait irq softirq steal …: busy is all but idle and iowait; steal
    // counts, as it is the host's other guests on these cores.
    const all = /^cpu\s+(.+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]?.trim().split(/\s+/).map(Number);
    const self = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14 … cstime 17.
    const f = self
      .slice(self.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    if (!all || all.length < 8 || f.length < 15) return null;
    const [user, nice, system, , , irq, softirq, steal] = all as [number, number, number, number, number, number, number, number];
    const own = f[11]! + f[12]! + f[13]! + f[14]!;
    if (![user, nice, system, irq, softirq, steal, own].every(Number.isFinite)) return null;
    return { machine: user + nice + system + irq + softirq + steal, own, atMs: performance.now() };
  } catch {
    return null;
  }
}

/**
 * Others' work during the run, in cores on average: the machine's busy time
 * less this process's and its children's, over the run's wall time. Null
 * where /proc is missing. Load before the run (loadNow) misses work that
 * starts once the run has: a test suite started beside a bench took one of
 * two cores and its thread ratio read 0.985 ×, "not met".
 */
export function othersDuring(from: CpuMark | null, to: CpuMark | null): number | null {
  if (!from || !to || to.atMs <= from.atMs) return null;
  const others = to.machine - from.machine - (to.own - from.own);
  return Math.max(0, others / TICKS_PER_SECOND / ((to.atMs - from.atMs) / 1000));
}

/** Others' work during the run (othersDuring) above this share of the cores: the figures measure them too. */
export const MAX_OTHERS_SHARE = 0.15;

/**
 * The series whose code is compiled before it runs (the addon, OpenSSL): their
 * runs vary with the machine alone. TypeScript, BigInt and WebAssembly rows
 * also vary as V8 tiers their code up and collects garbage between runs (on an
 * idle 2-core Zen 3, quick runs of `ts 1 thread` 40–52 % apart, of a 2048-bit
 * WebAssembly modexp 75 %), which says nothing about others' work.
 */
const MACHINE_STEADY_SERIES = /^(native|openssl)\b/;

/**
 * Relative spread of a row's repeated runs, or null where it says nothing
 * about the machine: fewer than 3 runs; rows whose runs do different work
 * (a safe prime's time depends on where the search starts, and openssl
 * dhparam's varies tenfold between runs); runs under a millisecond, which one
 * context switch doubles on any machine; code V8 compiles as it runs
 * (MACHINE_STEADY_SERIES).
 */
export function rowSpread(r: BenchRow): number | null {
  if (r.chart !== 'pow-rate' && r.chart !== 'modexp') return null;
  if (!MACHINE_STEADY_SERIES.test(r.series)) return null;
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
export function judgeNoise(rows: readonly BenchRow[], loadBefore: number, cores: number, coreRates?: BenchNoise['coreRates'], during: number | null = null): BenchNoise {
  let worst: BenchNoise['worstSpread'] = null;
  for (const r of rows) {
    const s = rowSpread(r);
    if (s !== null && (worst === null || s > worst.spread)) worst = { what: r.what, spread: s };
  }
  const reasons: string[] = [];
  if (loadBefore > MAX_LOAD_SHARE * cores) reasons.push(`others' load ${loadBefore.toFixed(2)} on ${cores} cores before the run`);
  if (during !== null && during > MAX_OTHERS_SHARE * cores) reasons.push(`others used ${during.toFixed(2)} of ${cores} cores on average during the run`);
  if (worst && worst.spread > MAX_SPREAD) reasons.push(`repeated runs of "${worst.what}" differed by ${Math.round(worst.spread * 100)}%`);
  return { loadBefore, ...(during !== null ? { othersDuring: during } : {}), cores, worstSpread: worst, ...(coreRates ? { coreRates } : {}), busy: reasons.length > 0, reasons };
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
