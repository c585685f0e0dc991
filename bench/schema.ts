/**
 * The one result schema of `powprime bench`, whatever the suite: the machine
 * it ran on, rows of measurements, and targets. `--json` prints it,
 * `--save` keeps it, `--compare` and `--report` read it.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, platform, arch } from 'node:os';
import { backendInfo } from '../src/backend.ts';
import { native } from '../src/native.ts';
import { packageVersion } from '../src/package-root.ts';

export const SCHEMA_VERSION = 1;

export interface BenchMachine {
  cpu: string;
  cores: number;
  platform: string;
  /** CPU features the native core looks for, as it found them (empty without the addon). */
  features: string[];
  /** Kernels in use: SHA-256 (PoW) and bignum multiplication. */
  kernels: { sha256: string; bignum: string };
  node: string;
  /** `openssl version`, or null when the command is absent. */
  openssl: string | null;
  powprime: string;
  /** ISO 8601, when the run started. */
  date: string;
}

export interface BenchRow {
  suite: 'pow' | 'prime' | 'moduli';
  /** Which chart and table the row belongs to, and its place there. */
  chart: 'pow-rate' | 'pow-layout' | 'modexp' | 'safe-prime' | 'fermat-tests' | 'fermat-cost' | 'moduli';
  series: string;
  /** Bit length for the prime charts; absent for PoW. */
  bits?: number;
  /** Nonce length in bytes for the PoW layout chart (it decides the kernel's shape). */
  nonceLength?: number;
  /** Unique within a run: how rows of two runs are matched. */
  what: string;
  /** The headline figure: the median of the runs, or a mean where said in `note`. */
  value: number | null;
  unit: string;
  runs: number;
  min: number | null;
  median: number | null;
  max: number | null;
  note?: string;
}

export interface BenchTarget {
  what: string;
  value: number | null;
  unit: string;
  goal: number;
  /** 'min': the goal is a minimum (value ≥ goal); 'max': a maximum (value ≤ goal). */
  direction: 'min' | 'max';
  /** null when the value could not be measured here. */
  met: boolean | null;
  /**
   * The figure counts work done (Fermat tests a prime), which other work on
   * the machine cannot change: judged met or not met whatever the load.
   */
  counted?: boolean;
  /**
   * How to read the result (runs saved before this field have none): `met` as
   * measured, except that a goal missed on a busy or noisy machine is 'not
   * judged' rather than 'not met'.
   */
  verdict?: 'met' | 'not met' | 'not judged' | 'not measured';
  /** Why a target was not judged. */
  why?: string;
  /** The figures a ratio of ratios is made of, each named (the thread goal: ours and the machine's own scaling). */
  detail?: string;
}

/** The machine's own scaling in the run: OpenSSL's SHA-256 on one process and on `processes` at once, wall time, the best run of each. */
export interface MachineScaling {
  processes: number;
  /** SHA-256 blocks per second of one `openssl speed -elapsed` process. */
  single: number;
  /** Blocks per second of `processes` of them at once (`-multi`), their sum. */
  multi: number;
  /** multi / single, at most `processes`. */
  ratio: number;
}

/** The PoW suite's headline figures, printed above the targets. */
export interface PowSummary {
  /** The kernel the rate is of: the native SHA-256 searcher in use, or 'ts' without the addon. */
  kernel: string;
  /**
   * The headline rate, hashes per second of one thread: the kernel alone in
   * the bench's own thread, the median over nonce lengths 1 to `lengths` (the
   * best pass of each), the figure the goals against OpenSSL judge. Null where
   * it could not be measured.
   */
  rate: number | null;
  /** The slowest nonce length's rate, as `rate`. */
  min: number | null;
  lengths: number;
  /** OpenSSL's SHA-256 block rate on one core, its best run (per CPU second, `openssl speed`'s default). */
  openssl: number | null;
  threads: number;
  /**
   * All threads / 1 thread, both through solvePow on the same nonce lengths
   * (`measured` of them): the minimum and the median over those lengths.
   */
  threadRatio: { min: number; median: number; measured: number } | null;
  /** The machine's own scaling, measured in the same run: the thread goal's baseline. */
  machineScaling: MachineScaling | null;
  /** Why machineScaling is null. */
  machineScalingWhy?: string;
}

/** The native PoW kernel's best rate (hashes/s) on each probed core, alone and with every probed core running it at once. */
export interface CoreProbe {
  /** The CPU numbers probed, in the order of the rates. */
  cpus: number[];
  alone: number[];
  together: number[];
}

/** How quiet the machine was: the load before the run and the spread of repeated runs. */
export interface BenchNoise {
  /** Others' load just before measuring (noise.ts loadNow: runnable tasks on Linux, else the 1-minute load average). */
  loadBefore: number;
  /** Others' work during the run, in cores on average (noise.ts othersDuring); absent where not measured. */
  othersDuring?: number;
  cores: number;
  /** The row whose repeated runs disagreed most: (max − min) / median. */
  worstSpread: { what: string; spread: number } | null;
  /** The native PoW kernel's rate on each core, before and after the suites (bench/cores.ts); null where not measured. */
  coreRates?: { before: CoreProbe | null; after: CoreProbe | null };
  /** True when the figures say more about the machine's other work than about powprime. */
  busy: boolean;
  reasons: string[];
}

export interface BenchResult {
  schema: number;
  quick: boolean;
  machine: BenchMachine;
  rows: BenchRow[];
  targets: BenchTarget[];
  /** What was left out, with the reason. */
  skipped: string[];
  /** Absent in runs saved before it was measured. */
  noise?: BenchNoise;
  /** The PoW suite's headline figures; absent when the suite did not run, and in runs saved before it. */
  pow?: PowSummary;
}

export function machineInfo(date = new Date()): BenchMachine {
  const info = backendInfo();
  const cpu = (native()?.backendInfo() as { cpu?: Record<string, boolean> } | undefined)?.cpu ?? {};
  const ssl = spawnSync('openssl', ['version'], { encoding: 'utf8' });
  return {
    cpu: cpus()[0]?.model.trim() || 'unknown',
    cores: availableParallelism(),
    platform: `${platform()}-${arch()}`,
    features: Object.entries(cpu)
      .filter(([, on]) => on)
      .map(([name]) => name),
    kernels: { sha256: info.sha256, bignum: info.bignum },
    node: process.version,
    openssl: ssl.error || ssl.status !== 0 ? null : ssl.stdout.trim(),
    powprime: packageVersion(),
    date: date.toISOString(),
  };
}

/** min / median / max of samples, or nulls when there are none. */
export function spread(xs: readonly number[]): Pick<BenchRow, 'runs' | 'min' | 'median' | 'max'> {
  if (!xs.length) return { runs: 0, min: null, median: null, max: null };
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return { runs: s.length, min: s[0]!, median: s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2, max: s[s.length - 1]! };
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((a, x) => a + x, 0) / xs.length;
}

/** a / b, or null when either was not measured. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  return a != null && b != null ? a / b : null;
}

export function target(what: string, value: number | null, unit: string, goal: number, direction: 'min' | 'max', opts: { counted?: boolean } = {}): BenchTarget {
  return { what, value, unit, goal, direction, met: value === null ? null : direction === 'min' ? value >= goal : value <= goal, ...(opts.counted ? { counted: true } : {}) };
}

/** Throws a RangeError naming the file when `x` is not a saved bench result (for --compare). */
export function checkResult(x: unknown, file: string): BenchResult {
  const o = x as Partial<BenchResult> | null;
  if (o === null || typeof o !== 'object' || o.schema !== SCHEMA_VERSION || !Array.isArray(o.rows) || !Array.isArray(o.targets) || typeof o.machine !== 'object') {
    throw new RangeError(`${file} is not a result saved by powprime bench --save (schema ${SCHEMA_VERSION})`);
  }
  // What a comparison reads (report.ts compareRuns): a hand-edited file fails here, in one line, not there.
  const m = o.machine as Partial<BenchMachine> | null;
  const strings = (xs: unknown): boolean => Array.isArray(xs) && xs.every((f) => typeof f === 'string');
  const row = (r: Partial<BenchRow> | null): boolean => r !== null && typeof r === 'object' && typeof r.what === 'string' && (r.value === null || typeof r.value === 'number');
  if (m === null || typeof m.cpu !== 'string' || typeof m.cores !== 'number' || typeof m.date !== 'string' || !strings(m.features) || !o.rows.every(row)) {
    throw new RangeError(`${file} is a saved result with its machine or rows damaged (the machine needs cpu, cores, date and features; each row "what" and "value")`);
  }
  return o as BenchResult;
}
