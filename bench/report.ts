import type { PowBenchResult } from './pow.ts';

function fmtRate(r: number | null): string {
  if (r === null) return '—';
  return r >= 1e6 ? `${(r / 1e6).toFixed(2)} M/s` : `${(r / 1e3).toFixed(1)} k/s`;
}

/** The table `powprime bench` prints (also pasted into the README). */
export function formatPowReport(res: PowBenchResult): string {
  const lines: string[] = ['Proof of work: hashes per second (median of runs; difficulty 64, so nothing is accepted)', ''];
  const w = Math.max(...res.rows.map((r) => r.name.length));
  lines.push(`| ${'backend'.padEnd(w)} | rate        | runs |`, `| ${'-'.repeat(w)} | ----------- | ---- |`);
  for (const r of res.rows) {
    lines.push(`| ${r.name.padEnd(w)} | ${fmtRate(r.rate).padStart(11)} | ${String(r.runs).padStart(4)} |${r.note ? ` ${r.note}` : ''}`);
  }
  lines.push('', 'Targets (ratios measured in this run):', '');
  for (const t of res.targets) {
    const got = t.ratio === null ? 'not measured' : t.ratio.toFixed(2);
    const verdict = t.met === null ? '' : t.met ? 'met' : 'NOT met';
    lines.push(`- ${t.what}: ${got} (goal ≥ ${t.goal}) ${verdict}`);
  }
  return lines.join('\n');
}
