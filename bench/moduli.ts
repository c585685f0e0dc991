/**
 * OpenSSH moduli, side by side in one run: powprime's core time a usable
 * group (a batch of one size on all cores, as `powprime moduli` runs it)
 * against `ssh-keygen -M generate` and `-M screen`, and against OpenSSL's
 * Miller–Rabin round of the same size (node:crypto's checkPrimeSync), so
 * the figures are ratios that do not depend on the clock.
 *
 * ssh-keygen's side: one `-M generate` at `-O memory=8` (its smallest sieve
 * window) gives N candidates in t_gen core seconds; two `-M screen`
 * processes, one a core, screen the first S of them (`-O start-line`,
 * `-O lines`) in t_screen core seconds and keep k. Its core time a usable
 * group is then (t_gen·S/N + t_screen)/k: the share of the sieve that
 * produced the screened candidates, and their screening. Each ssh-keygen
 * process is single-threaded, so its wall time is its core time. The same
 * S candidates are then screened by powprime in this process (the path of
 * `moduli --screen`, all cores, its CPU time): the screening ratio.
 */
import { checkPrimeSync } from 'node:crypto';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { backendInfo } from '../src/backend.ts';
import { generateModuli } from '../src/moduli/generate.ts';
import { poolSize } from '../src/pool/pool.ts';
import { expectedTestsPerPrime } from '../src/prime/expectation.ts';
import { sieveLimit } from '../src/prime/sieve-depth.ts';
import { screenModuli } from '../src/moduli/screen.ts';
import { runChild } from './openssl.ts';
import { ratio, target, type BenchRow, type BenchTarget } from './schema.ts';

export interface ModuliBenchResult {
  rows: BenchRow[];
  targets: BenchTarget[];
  skipped: string[];
}

/** The groups of the file OpenSSH ships, by size: what the 6-hour goal is about. */
const SHIPPED: [bits: number, count: number][] = [
  [2048, 100],
  [3072, 100],
  [4096, 100],
  [6144, 100],
  [7680, 74],
  [8192, 64],
];

/** The seeded runs the goals were set on: the same groups in every run. */
const SEED = 4242n;

/** Milliseconds of one OpenSSL Miller–Rabin round at p's size: checkPrimeSync on a prime, over its rounds (OpenSSL 3 runs at least 64, or 128 above 2048 bits). */
async function opensslRoundMs(p: bigint, runs: number): Promise<number> {
  const checks = 128;
  const rounds = Math.max(checks, p.toString(2).length > 2048 ? 128 : 64);
  checkPrimeSync(p, { checks });
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    await nextTurn();
    const t = performance.now();
    checkPrimeSync(p, { checks });
    xs.push((performance.now() - t) / rounds);
  }
  return xs.sort((a, b) => a - b)[xs.length >> 1]!;
}

/**
 * Core milliseconds a group of a batch of `count`, all cores, the first group (for OpenSSL's round at its
 * size), and the Fermat tests a group beside the search's own expectation at the depth it sieved to: a mean
 * of 8 groups is good to about ±35 %, and this says how lucky the seed's groups were.
 */
async function powprimeBatch(bits: number, count: number): Promise<{ coreMs: number; first: bigint; tests: number; expected: number; limit: number }> {
  // The pool and the deep prime tables start first: a long run pays them once.
  for await (const _ of generateModuli({ bits: 2048, count: 1, seed: 1n, backend: 'native' }));
  const t = process.cpuUsage();
  let first: bigint | null = null;
  let tested = 0;
  for await (const m of generateModuli({ bits, count, seed: SEED, backend: 'native', onProgress: (p) => (tested = p.tested) })) first ??= m.prime;
  const u = process.cpuUsage(t);
  // The depth the search chose: it depends on the indexes each thread searches in a row (scheduler.ts).
  const limit = sieveLimit(bits, 'native', { indexesAhead: count / poolSize() });
  return { coreMs: (u.user + u.system) / 1000 / count, first: first!, tests: tested / count, expected: expectedTestsPerPrime(bits, limit), limit };
}

interface SshKeygenSide {
  /** Core seconds a usable group: generate's share and screening. */
  coreS: number;
  note: string;
  /** Core seconds `-M screen` took over the screened candidates, and the groups it kept. */
  screenS: number;
  kept: number;
  /** The candidates it screened, as its file had them. */
  screenedLines: string;
}

/** powprime's core seconds screening the candidates ssh-keygen screened (moduli --screen's path, all cores), and the groups it kept. */
async function powprimeScreen(text: string): Promise<{ coreS: number; kept: number }> {
  const t = process.cpuUsage();
  const r = await screenModuli(text, { backend: 'native' });
  const u = process.cpuUsage(t);
  return { coreS: (u.user + u.system) / 1e6, kept: r.good.length };
}

/** ssh-keygen's core seconds a usable group at `bits`, screening until about `keep` are kept; or the reason it could not run. */
async function sshKeygenPerGroup(bits: number, keep: number, onStep?: (s: string) => void): Promise<SshKeygenSide | string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'powprime-bench-moduli-'));
  try {
    const candidates = path.join(dir, 'candidates');
    onStep?.(`ssh-keygen -M generate ${bits} bits, memory 8 MB`);
    let t = performance.now();
    const gen = await runChild('ssh-keygen', ['-q', '-M', 'generate', '-O', `bits=${bits}`, '-O', 'memory=8', candidates], 3_600_000);
    if (gen.error) return `ssh-keygen not runnable: ${gen.error.message}`;
    if (gen.status !== 0) return `ssh-keygen -M generate failed: ${gen.stderr.trim().slice(0, 200)}`;
    const genS = (performance.now() - t) / 1000;
    const lines = readFileSync(candidates, 'utf8')
      .split('\n')
      .filter((l) => /^\d/.test(l));
    const total = lines.length;
    // About 1 in 1,600 candidates at 2048 bits is kept (fewer as bits grow: (ln p)² of them): screen enough for `keep`, in two halves at once.
    const screened = Math.min(total, Math.ceil(keep * 1600 * (bits / 2048) ** 2));
    const half = Math.ceil(screened / 2);
    onStep?.(`ssh-keygen -M screen ${bits} bits, ${screened} of ${total} candidates on 2 cores`);
    const screen = async (start: number, lines: number): Promise<{ s: number; kept: number } | string> => {
      const out = path.join(dir, `screened-${start}`);
      const t0 = performance.now();
      const r = await runChild('ssh-keygen', ['-q', '-M', 'screen', '-f', candidates, '-O', `start-line=${start}`, '-O', `lines=${lines}`, out], 3_600_000);
      if (r.status !== 0) return `ssh-keygen -M screen failed: ${r.stderr.trim().slice(0, 200)}`;
      return {
        s: (performance.now() - t0) / 1000,
        kept: readFileSync(out, 'utf8')
          .split('\n')
          .filter((l) => /^\d/.test(l)).length,
      };
    };
    t = performance.now();
    const halves = await Promise.all([screen(0, half), screen(half, screened - half)]);
    for (const h of halves) if (typeof h === 'string') return h;
    const [a, b] = halves as { s: number; kept: number }[];
    const kept = a!.kept + b!.kept;
    if (!kept) return `ssh-keygen kept none of ${screened} ${bits}-bit candidates: too few to measure`;
    const screenS = a!.s + b!.s;
    return {
      coreS: ((genS * screened) / total + screenS) / kept,
      screenS,
      kept,
      screenedLines: `${lines.slice(0, screened).join('\n')}\n`,
      note: `generate ${genS.toFixed(0)} s for ${total} candidates; screen ${screenS.toFixed(0)} core s for ${screened}, ${kept} kept: (generate × ${screened}/${total} + screen) / ${kept}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Core seconds a group at any shipped size, from the measured sizes: log-log
 * between the two nearest (a Fermat test grows as about bits^2.6 and the
 * tests a prime as bits², so the cost is close to a power of the size).
 */
export function interpolate(measured: Map<number, number>, bits: number): number {
  const sizes = [...measured.keys()].sort((a, b) => a - b);
  const lo = [...sizes].reverse().find((s) => s <= bits) ?? sizes[0]!;
  const hi = sizes.find((s) => s >= bits) ?? sizes[sizes.length - 1]!;
  if (lo === hi) return measured.get(lo)!;
  const k = Math.log(measured.get(hi)! / measured.get(lo)!) / Math.log(hi / lo);
  return measured.get(lo)! * (bits / lo) ** k;
}

/** One size of the suite: a batch of `count` groups, and ssh-keygen screening until about `ssh` are kept (0: not run). */
interface ModuliStep {
  bits: number;
  count: number;
  ssh: number;
}

/** The full run's sizes: the goals' 2048 (a batch of 100), 3072, and 8192 (the mean of 8), which ssh-keygen would take hours at. */
const FULL_PLAN: ModuliStep[] = [
  { bits: 2048, count: 100, ssh: 30 },
  { bits: 3072, count: 24, ssh: 8 },
  { bits: 8192, count: 8, ssh: 0 },
];

/**
 * What a run measures: --quick one 2048-bit batch; in full the plan above, or
 * only `sizes` (`bench --moduli-bits`), each as the plan has it or, for a size
 * it lacks, 8 groups without ssh-keygen, as at 8192.
 */
export function moduliPlan(quick: boolean, sizes?: number[]): ModuliStep[] {
  if (quick) return [{ bits: 2048, count: 24, ssh: 8 }];
  if (!sizes) return FULL_PLAN;
  return [...sizes].sort((a, b) => a - b).map((bits) => FULL_PLAN.find((p) => p.bits === bits) ?? { bits, count: 8, ssh: 0 });
}

export async function runModuliBench(opts: { quick: boolean; sizes?: number[]; onStep?: (name: string) => void }): Promise<ModuliBenchResult> {
  const rows: BenchRow[] = [];
  const targets: BenchTarget[] = [];
  const skipped: string[] = [];
  if (backendInfo().backend !== 'native') {
    skipped.push(`moduli: the native addon is not loaded (${backendInfo().nativeError})`);
    return { rows, targets, skipped };
  }
  const add = (r: Pick<BenchRow, 'series' | 'bits' | 'what' | 'unit' | 'value'> & { runs?: number; note?: string }): void => {
    rows.push({ suite: 'moduli', chart: 'moduli', min: r.value, median: r.value, max: r.value, runs: 1, ...r });
  };
  const plan = moduliPlan(opts.quick, opts.sizes);
  const coreS = new Map<number, number>();
  for (const { bits, count, ssh } of plan) {
    opts.onStep?.(`moduli ${bits} bits, a batch of ${count} on all cores`);
    const batch = await powprimeBatch(bits, count);
    const roundMs = await opensslRoundMs(batch.first, bits >= 8192 ? 3 : 7);
    coreS.set(bits, batch.coreMs / 1000);
    add({
      series: 'powprime core s',
      bits,
      what: `moduli ${bits} bits, powprime core s a group`,
      unit: 's',
      value: batch.coreMs / 1000,
      runs: count,
      note: `process CPU time / ${count} groups (seed ${SEED})`,
    });
    add({
      series: 'tests a group',
      bits,
      what: `moduli ${bits} bits, Fermat tests a group`,
      unit: 'tests',
      value: batch.tests,
      runs: count,
      note: `expected ${batch.expected.toFixed(0)} at the sieve's depth 2^${Math.log2(batch.limit).toFixed(0)}: this seed's ${count} groups took ${(batch.tests / batch.expected).toFixed(2)} × the expectation (a mean of ${count} is good to about ±${Math.round(100 / Math.sqrt(count))} %)`,
    });
    add({ series: 'OpenSSL MR round ms', bits, what: `OpenSSL Miller-Rabin round ${bits} bits`, unit: 'ms', value: roundMs, note: 'checkPrimeSync on a modulus found / its rounds' });
    const rounds = batch.coreMs / roundMs;
    add({ series: 'powprime in MR rounds', bits, what: `moduli ${bits} bits, powprime core time in OpenSSL MR rounds`, unit: 'rounds', value: rounds, runs: count });
    if (bits === 2048 && count >= 100) targets.push(target('2048-bit moduli, a batch of 100: core time a group in OpenSSL 2048-bit MR rounds', rounds, 'rounds', 140, 'max'));
    if (bits === 8192) targets.push(target(`8192-bit moduli: core time a group in OpenSSL 8192-bit MR rounds, mean of ${count}`, rounds, 'rounds', 2600, 'max'));
    if (!ssh) continue;
    const theirs = await sshKeygenPerGroup(bits, ssh, opts.onStep);
    if (typeof theirs === 'string') {
      skipped.push(`ssh-keygen at ${bits} bits: ${theirs}`);
      targets.push(target(`${bits}-bit moduli: ssh-keygen core time a usable group / powprime's`, null, '×', 25, 'min'));
      targets.push(target(`${bits}-bit candidates: ssh-keygen -M screen core time / powprime --screen's, the same lines`, null, '×', 25, 'min'));
      continue;
    }
    add({ series: 'ssh-keygen core s', bits, what: `moduli ${bits} bits, ssh-keygen core s a usable group`, unit: 's', value: theirs.coreS, note: theirs.note });
    targets.push(target(`${bits}-bit moduli: ssh-keygen core time a usable group / powprime's`, ratio(theirs.coreS, batch.coreMs / 1000), '×', 25, 'min'));
    opts.onStep?.(`powprime moduli --screen ${bits} bits, the candidates ssh-keygen screened`);
    const ours = await powprimeScreen(theirs.screenedLines);
    const agree = ours.kept === theirs.kept ? `both kept ${ours.kept}` : `KEPT DIFFER: powprime ${ours.kept}, ssh-keygen ${theirs.kept}`;
    add({ series: 'screen core s', bits, what: `moduli ${bits} bits, powprime --screen core s over ssh-keygen's screened candidates`, unit: 's', value: ours.coreS, note: agree });
    targets.push(target(`${bits}-bit candidates: ssh-keygen -M screen core time / powprime --screen's, the same lines`, ratio(theirs.screenS, ours.coreS), '×', 25, 'min'));
  }
  if (opts.sizes && targets.length === 0) {
    skipped.push(`goals: none is set at ${plan.map((p) => p.bits).join(', ')} bits (they are at 2048 and 3072 bits beside ssh-keygen, and at 8192)`);
  }
  // Sizes below the least measured one are taken at its cost: 8192 alone would price every size as 8192.
  if (coreS.has(8192) && coreS.size > 1) {
    const hours = SHIPPED.reduce((sum, [bits, n]) => sum + n * interpolate(coreS, bits), 0) / 2 / 3600;
    add({
      series: 'shipped file, hours on 2 cores',
      bits: 8192,
      what: "OpenSSH's shipped moduli file, estimated hours on 2 cores",
      unit: 'h',
      value: hours,
      note: `100 each at 2048, 3072, 4096 and 6144 bits, 74 at 7680, 64 at 8192; core time a group measured at ${[...coreS.keys()].join(', ')} bits, log-log between`,
    });
    targets.push(target("OpenSSH's shipped moduli file (100 each 2048-6144, 74 at 7680, 64 at 8192) on 2 cores", hours, 'h', 6, 'max'));
  } else {
    skipped.push('the shipped-file estimate: it needs the 8192-bit figure and a smaller size (the full run has both)');
  }
  return { rows, targets, skipped };
}
