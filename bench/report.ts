/**
 * What `powprime bench` prints on a terminal: the machine, the headline
 * figures, the targets and the verdict; with `--verbose` every Markdown table
 * too (the ones pasted into docs/benchmarks.md), each figure with its change
 * against a saved run when `--compare` is given.
 */
import { coreGap } from './cores.ts';
import type { BenchMachine, BenchResult, BenchRow, BenchTarget, CoreProbe, PowSummary } from './schema.ts';

export interface Comparison {
  /** Relative change of each row's value against the old run, by `what` (0.124 = +12.4%). */
  changes: Map<string, number>;
  /** Set when the two runs' machines differ (CPU model or features) or either ran on a busy machine: the changes mean less. */
  machineNote: string | null;
  oldDate: string;
}

export function compareRuns(now: BenchResult, old: BenchResult): Comparison {
  const before = new Map(old.rows.map((r) => [r.what, r.value]));
  const changes = new Map<string, number>();
  for (const r of now.rows) {
    const v = before.get(r.what);
    if (r.value !== null && v !== null && v !== undefined && v > 0) changes.set(r.what, r.value / v - 1);
  }
  const diffs: string[] = [];
  if (now.machine.cpu !== old.machine.cpu) diffs.push(`CPU ${old.machine.cpu} → ${now.machine.cpu}`);
  const added = now.machine.features.filter((f) => !old.machine.features.includes(f));
  const gone = old.machine.features.filter((f) => !now.machine.features.includes(f));
  if (added.length || gone.length) diffs.push(`features ${[...added.map((f) => `+${f}`), ...gone.map((f) => `-${f}`)].join(' ')}`);
  if (now.machine.cores !== old.machine.cores) diffs.push(`cores ${old.machine.cores} → ${now.machine.cores}`);
  const notes: string[] = [];
  if (diffs.length) notes.push(`the machines differ (${diffs.join('; ')}): changes compare different hardware`);
  const busy = [old.noise?.busy ? 'the old run' : '', now.noise?.busy ? 'this run' : ''].filter(Boolean);
  if (busy.length) notes.push(`${busy.join(' and ')} ran on a busy machine: changes may be the other work, not powprime`);
  return { changes, machineNote: notes.length ? notes.join('; ') : null, oldDate: old.machine.date };
}

export function formatChange(x: number | undefined): string {
  return x === undefined ? '' : `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%`;
}

export function formatValue(v: number | null, unit: string): string {
  if (v === null) return '—';
  if (unit === 'hashes/s') return v >= 1e6 ? `${(v / 1e6).toFixed(2)} M/s` : `${(v / 1e3).toFixed(1)} k/s`;
  if (unit === 'ms') return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(3);
  if (unit === 's') return v.toFixed(3);
  if (unit === 'tests') return v.toFixed(0);
  return v.toFixed(2);
}

export function machineLine(m: BenchMachine): string {
  return (
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.platform}; features ${m.features.join(' ') || 'none reported'}; ` +
    `kernels sha256 ${m.kernels.sha256}, bignum ${m.kernels.bignum}; Node ${m.node}; ${m.openssl ?? 'no openssl'}; powprime ${m.powprime}; ${m.date}`
  );
}

/** A target's reading: its verdict, or for runs saved before verdicts, its `met`. */
export function verdictOf(t: BenchTarget): NonNullable<BenchTarget['verdict']> {
  return t.verdict ?? (t.met === null ? 'not measured' : t.met ? 'met' : 'not met');
}

export function targetLine(t: BenchTarget): string {
  const got = t.value === null ? 'not measured' : `${t.value.toFixed(t.value >= 100 ? 0 : 3)} ${t.unit}`;
  const v = verdictOf(t);
  const verdict = v === 'not measured' ? '' : v === 'met' ? ' met' : v === 'not judged' ? ' not judged (busy machine)' : ' NOT met';
  return `- ${t.what}: ${got} (goal ${t.direction === 'min' ? '≥' : '≤'} ${t.goal} ${t.unit})${verdict}${t.detail ? `; ${t.detail}` : ''}`;
}

const mhs = (x: number): string => `${(x / 1e6).toFixed(x >= 1e8 ? 0 : 1)} M`;

/**
 * The PoW suite's headline, two lines: one rate (a thread of the kernel, the
 * median over nonce lengths: the figure the goals against OpenSSL judge) and
 * the thread scaling beside the machine's own, each figure named.
 */
export function headlineLines(p: PowSummary): string[] {
  const lines: string[] = [];
  const kernel = p.kernel === 'ts' ? 'the TypeScript kernel (no native addon)' : `native ${p.kernel}`;
  if (p.rate === null) lines.push('PoW rate: not measured.');
  else {
    const ssl = p.openssl ? ` = ${(p.rate / p.openssl).toFixed(2)} × OpenSSL's SHA-256 on one core (${mhs(p.openssl)} blocks/s)` : '';
    lines.push(
      `PoW rate: ${mhs(p.rate)} hashes/s on one thread${ssl}: ${kernel}, the median over nonce lengths 1–${p.lengths} (slowest ${mhs(p.min ?? p.rate)}), each length's best pass of the kernel alone.`,
    );
  }
  if (p.threadRatio) {
    const t = p.threadRatio;
    const m = p.machineScaling;
    const machine = m
      ? `; the machine itself ${m.ratio.toFixed(2)} × (OpenSSL's SHA-256 on ${m.processes} processes against one, wall time), so ours is ${(t.min / m.ratio).toFixed(2)} of the machine's`
      : `; the machine's own scaling not measured${p.machineScalingWhy ? ` (${p.machineScalingWhy})` : ''}`;
    lines.push(`Threads: ${p.threads} threads give ${t.min.toFixed(2)} × one thread through solvePow (the lowest of ${t.measured} nonce lengths; median ${t.median.toFixed(2)} ×)${machine}.`);
  }
  return lines;
}

/** The run's verdict in a few sentences a newcomer reads right. */
export function verdictLines(r: BenchResult): string[] {
  const by = (v: string): BenchTarget[] => r.targets.filter((t) => verdictOf(t) === v);
  const met = by('met');
  const missed = by('not met');
  const unjudged = by('not judged');
  const judged = met.length + missed.length + unjudged.length;
  const lines: string[] = [];
  if (judged === 0) lines.push('Verdict: no goal could be measured here (see Skipped).');
  else if (missed.length === 0 && unjudged.length === 0) lines.push(`Verdict: all ${judged} goals measured here were met.`);
  else {
    lines.push(
      `Verdict: ${met.length} of ${judged} goals met${missed.length ? `, ${missed.length} not met (${missed.map((t) => t.what).join('; ')})` : ''}${unjudged.length ? `, ${unjudged.length} not judged` : ''}.`,
    );
  }
  if (r.noise?.busy) {
    lines.push(
      `The machine was busy: ${r.noise.reasons.join('; ')}. Figures from such a run mostly measure the other work` +
        `${unjudged.length ? '; the goals it missed are not judged' : ''}. Run again when the machine is quiet.`,
    );
  }
  const probes = r.noise?.coreRates;
  const rates = (xs: number[]): string => xs.map((x) => (x / 1e6).toFixed(1)).join(' / ');
  const each = (p: CoreProbe | null | undefined): string => (p ? `${rates(p.alone)} alone, ${rates(p.together)} all at once` : 'not measured');
  if (probes && (probes.before || probes.after)) {
    const cpus = (probes.before ?? probes.after)!.cpus.join(', ');
    lines.push(`The PoW kernel on CPUs ${cpus}, M hashes/s: before the run ${each(probes.before)}; after, ${each(probes.after)}.`);
    for (const when of ['before', 'after'] as const) {
      const gap = coreGap(probes[when] ?? null);
      if (gap) lines.push(`${when === 'before' ? 'Before' : 'After'} the run, ${gap}.`);
    }
  }
  // The full run to suggest is this suite's: a plain `powprime bench` runs no moduli.
  const moduliOnly = r.rows.length > 0 && r.rows.every((row) => row.suite === 'moduli');
  if (r.quick && moduliOnly) lines.push('--quick measures 2048 bits alone; `powprime bench --suite moduli` (an hour or more, hours without IFMA) judges every moduli goal.');
  else if (r.quick) lines.push('--quick measures small sizes with few runs; `powprime bench` (about a quarter of an hour on 2 cores) judges every goal, at 2048 bits and above too.');
  return lines;
}

const cell = (r: BenchRow | undefined, c?: Comparison): string => {
  if (!r) return '—';
  const ch = c?.changes.get(r.what);
  return `${formatValue(r.value, r.unit)}${ch === undefined ? '' : ` (${formatChange(ch)})`}`;
};

/** One table per chart, bits down and series across for the prime charts. */
function table(rows: BenchRow[], c?: Comparison): string[] {
  if (!rows.length) return [];
  if (rows[0]!.chart === 'pow-rate') {
    const w = Math.max(7, ...rows.map((r) => r.what.length));
    return [
      `| ${'backend'.padEnd(w)} | rate        | runs | min         | max         |${c ? ' change |' : ''}`,
      `| ${'-'.repeat(w)} | ----------- | ---- | ----------- | ----------- |${c ? ' ------ |' : ''}`,
      ...rows.map(
        (r) =>
          `| ${r.what.padEnd(w)} | ${formatValue(r.value, r.unit).padStart(11)} | ${String(r.runs).padStart(4)} | ${formatValue(r.min, r.unit).padStart(11)} | ${formatValue(r.max, r.unit).padStart(11)} |` +
          `${c ? ` ${formatChange(c.changes.get(r.what)).padStart(6)} |` : ''}${r.note ? ` ${r.note}` : ''}`,
      ),
    ];
  }
  const series = [...new Set(rows.map((r) => r.series))];
  if (rows[0]!.chart === 'pow-layout') {
    const lengths = [...new Set(rows.map((r) => r.nonceLength!))].sort((a, b) => a - b);
    return [
      `| nonce length | ${series.join(' | ')} |`,
      `| ------------ | ${series.map((s) => '-'.repeat(s.length)).join(' | ')} |`,
      ...lengths.map(
        (n) =>
          `| ${n} | ${series
            .map((s) =>
              cell(
                rows.find((r) => r.nonceLength === n && r.series === s),
                c,
              ),
            )
            .join(' | ')} |`,
      ),
    ];
  }
  const bits = [...new Set(rows.map((r) => r.bits!))].sort((a, b) => a - b);
  return [
    `| bits | ${series.join(' | ')} |`,
    `| ---- | ${series.map((s) => '-'.repeat(s.length)).join(' | ')} |`,
    ...bits.map(
      (b) =>
        `| ${b} | ${series
          .map((s) =>
            cell(
              rows.find((r) => r.bits === b && r.series === s),
              c,
            ),
          )
          .join(' | ')} |`,
    ),
  ];
}

const TITLES: Record<BenchRow['chart'], string> = {
  'pow-rate':
    'Proof of work on one nonce (20 bytes): hashes per second, the median of runs (difficulty 64, so nothing is accepted). native and ts run through solvePow, worker threads and chunk hand-offs included, so below the per-length figures of the kernel alone; node:crypto hashes a candidate a createHash. OpenSSL: SHA-256 blocks per second, on one core per CPU second (the kernel goals’ baseline), on processes over wall time (the thread goal’s)',
  'pow-layout':
    'Proof of work per nonce length (the length decides the kernel shape): hashes per second, best of passes, fixed-seed nonces; "native 1 thread" is the kernel alone in the bench’s own thread (the headline and the OpenSSL goals), the solvePow columns the thread goal’s two sides',
  modexp: 'Modular exponentiation, full-size exponent: median ms per exponentiation',
  'safe-prime': 'Safe primes and DH parameters: mean seconds each (native and powprime on all cores; node:crypto and openssl on 1 core)',
  'fermat-tests': 'Fermat tests per safe prime: measured in the native search, and expected for its sieve',
  'fermat-cost': 'Core time per Fermat test (ms): the other factor of the time per prime',
  moduli:
    "OpenSSH moduli: core time a usable group, powprime (a batch on all cores) and ssh-keygen (generate and screen), and in OpenSSL Miller-Rabin rounds of its size; powprime's Fermat tests a group (--json or --save: beside the search's own expectation)",
};

export interface ReportOptions {
  /** Every table, the one per nonce length too (`--verbose`). Without it a comparison shows the tables but that one, and a run none. */
  verbose?: boolean;
}

export function formatReport(r: BenchResult, c?: Comparison, opts: ReportOptions = {}): string {
  const lines: string[] = [machineLine(r.machine)];
  if (c) lines.push(`Compared with the run of ${c.oldDate}${c.machineNote ? `; NOTE: ${c.machineNote}` : ''}`);
  if (r.pow) lines.push('', ...headlineLines(r.pow));
  const charts = opts.verbose
    ? (['pow-rate', 'pow-layout', 'modexp', 'safe-prime', 'fermat-tests', 'fermat-cost', 'moduli'] as const)
    : c
      ? (['pow-rate', 'modexp', 'safe-prime', 'fermat-tests', 'fermat-cost', 'moduli'] as const)
      : [];
  for (const chart of charts) {
    const rows = r.rows.filter((x) => x.chart === chart);
    if (rows.length) lines.push('', TITLES[chart], '', ...table(rows, c));
  }
  lines.push('', 'Targets (measured in this run):', '', ...r.targets.map(targetLine));
  if (r.skipped.length) lines.push('', ...r.skipped.map((s) => `Skipped: ${s}`));
  lines.push('', ...verdictLines(r));
  // With --compare the tables are printed already, all but the nonce lengths' one.
  const perLength = r.rows.some((x) => x.chart === 'pow-layout');
  const tables = c ? (perLength ? '--verbose adds the table of nonce lengths' : '') : `--verbose prints the tables${perLength ? ' (one row a nonce length)' : ''}`;
  if (!opts.verbose) lines.push(`Every measurement: ${tables ? `${tables}, ` : ''}--json or --save the data, --report FILE.html charts.`);
  return lines.join('\n');
}
