/**
 * `powprime bench --report FILE.html`: one self-contained page (no scripts,
 * fonts or styles from elsewhere) with the machine, SVG charts and the
 * tables. Charts are Vega-Lite specs compiled and rendered to SVG by vega in
 * Node, headless; this module (and vega with it) is loaded only for --report.
 */
import type { BenchResult, BenchRow } from './schema.ts';
import { formatChange, formatValue, machineLine, targetLine, type Comparison } from './report.ts';

type Spec = Record<string, unknown>;

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function render(spec: Spec): Promise<string> {
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(vl.compile(spec as never).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

const base = (title: string, values: object[]): Spec => ({
  title,
  width: 560,
  data: { values },
  config: { font: 'sans-serif', view: { stroke: null } },
});

function powChart(rows: BenchRow[]): Spec {
  const values = rows.filter((r) => r.value !== null).map((r) => ({ what: r.what, rate: r.value! / 1e6, openssl: r.series.startsWith('openssl') }));
  return {
    ...base('Proof of work: M hashes/s (OpenSSL: its SHA-256 blocks/s on one core)', values),
    height: { step: 28 },
    mark: { type: 'bar', tooltip: true },
    encoding: {
      y: { field: 'what', type: 'nominal', sort: '-x', title: null, axis: { labelLimit: 320 } },
      x: { field: 'rate', type: 'quantitative', title: 'M hashes/s' },
      color: { field: 'openssl', type: 'nominal', scale: { range: ['#4c78a8', '#e45756'] }, legend: null },
    },
  };
}

/**
 * One line per PoW series across nonce lengths (the length decides the
 * kernel's shape), log scale like the size charts; OpenSSL's one-core block
 * rate, measured in the same run, is the dashed line.
 */
function layoutChart(rows: BenchRow[], openssl: number | null): Spec {
  const values = rows.filter((r) => r.value !== null).map((r) => ({ length: r.nonceLength, series: r.series, rate: r.value! / 1e6 }));
  return {
    ...base('Proof of work per nonce length: M hashes/s, one point per length (dashed: OpenSSL blocks/s, 1 core)', values),
    height: 280,
    layer: [
      {
        mark: { type: 'line', point: { size: 30 }, tooltip: true },
        encoding: {
          x: { field: 'length', type: 'quantitative', title: 'nonce length (bytes)', scale: { zero: false } },
          y: { field: 'rate', type: 'quantitative', scale: { type: 'log' }, title: 'M hashes/s (log scale)' },
          color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'right', labelLimit: 220 } },
        },
      },
      ...(openssl ? [{ mark: { type: 'rule', strokeDash: [4, 3], color: '#e45756' }, encoding: { y: { datum: openssl / 1e6 } } }] : []),
    ],
  };
}

/** One line per implementation across bit lengths, on a log scale (they span orders of magnitude; bars cannot start at log 0). */
function sizeChart(rows: BenchRow[], title: string, unit: string): Spec {
  const values = rows.filter((r) => r.value !== null).map((r) => ({ bits: r.bits, series: r.series, value: r.value }));
  return {
    ...base(title, values),
    height: 280,
    mark: { type: 'line', point: { size: 60 }, tooltip: true },
    encoding: {
      x: { field: 'bits', type: 'ordinal', title: 'bits', sort: 'ascending', axis: { labelAngle: 0 } },
      y: { field: 'value', type: 'quantitative', scale: { type: 'log' }, title: `${unit} (log scale)` },
      color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'right', labelLimit: 220 } },
    },
  };
}

function targetChart(r: BenchResult): Spec {
  // Ratio to goal with 1 as the line to reach, whichever way the goal points.
  const values = r.targets
    .filter((t) => t.value !== null && t.value > 0)
    .map((t) => ({ what: t.what, score: t.direction === 'min' ? t.value! / t.goal : t.goal / t.value!, met: t.met ? 'met' : 'not met' }));
  return {
    ...base('Targets: how far past the goal (≥ 1 is met)', values),
    height: { step: 28 },
    // Points on a log scale, so 2× past the goal and 2× short of it sit equally far from the line at 1.
    layer: [
      {
        mark: { type: 'point', filled: true, size: 120, tooltip: true },
        encoding: {
          y: { field: 'what', type: 'nominal', title: null, sort: null, axis: { labelLimit: 360 } },
          x: { field: 'score', type: 'quantitative', title: 'ratio to goal (log scale)', scale: { type: 'log' } },
          color: { field: 'met', type: 'nominal', scale: { domain: ['met', 'not met'], range: ['#54a24b', '#e45756'] }, title: null },
        },
      },
      { mark: { type: 'rule', strokeDash: [4, 3] }, encoding: { x: { datum: 1 } } },
    ],
  };
}

function rowsTable(r: BenchResult, c?: Comparison): string {
  const head = ['what', 'value', 'unit', 'runs', 'min', 'median', 'max', ...(c ? ['change'] : []), 'note'];
  const body = r.rows.map((x) => {
    const cells = [
      x.what,
      formatValue(x.value, x.unit),
      x.unit,
      String(x.runs),
      formatValue(x.min, x.unit),
      formatValue(x.median, x.unit),
      formatValue(x.max, x.unit),
      ...(c ? [formatChange(c.changes.get(x.what))] : []),
      x.note ?? '',
    ];
    return `<tr>${cells.map((v) => `<td>${esc(v)}</td>`).join('')}</tr>`;
  });
  return `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

export async function htmlReport(r: BenchResult, c?: Comparison): Promise<string> {
  const charts: string[] = [];
  const pow = r.rows.filter((x) => x.chart === 'pow-rate');
  const modexp = r.rows.filter((x) => x.chart === 'modexp');
  const primes = r.rows.filter((x) => x.chart === 'safe-prime');
  if (pow.length) charts.push(await render(powChart(pow)));
  const layouts = r.rows.filter((x) => x.chart === 'pow-layout');
  if (layouts.length) charts.push(await render(layoutChart(layouts, pow.find((x) => x.series.startsWith('openssl'))?.max ?? null)));
  if (modexp.length) charts.push(await render(sizeChart(modexp, 'Modular exponentiation, full-size exponent: median ms', 'ms')));
  if (primes.length) charts.push(await render(sizeChart(primes, 'Time per safe prime and per DH parameter set: seconds (lower is better)', 's')));
  const tests = r.rows.filter((x) => x.chart === 'fermat-tests');
  if (tests.length) charts.push(await render(sizeChart(tests, 'Fermat tests per safe prime: measured and expected for the sieve', 'tests')));
  if (r.targets.some((t) => t.value !== null)) charts.push(await render(targetChart(r)));
  const m = r.machine;
  const machine = [
    ['CPU', `${m.cpu} (${m.cores} cores, ${m.platform})`],
    ['CPU features used', m.features.join(', ') || 'none reported'],
    ['kernels', `SHA-256 ${m.kernels.sha256}; bignum ${m.kernels.bignum}`],
    ['Node', m.node],
    ['OpenSSL', m.openssl ?? 'not found'],
    ['powprime', m.powprime],
    ['date', m.date],
    ['mode', r.quick ? '--quick' : 'full'],
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>powprime bench — ${esc(m.cpu)} — ${esc(m.date)}</title>
<style>
body{font-family:sans-serif;margin:2em auto;max-width:62em;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left}
th{background:#f3f3f3}.chart{margin:1.5em 0}.note{background:#fff4e0;border:1px solid #e0b060;padding:.5em 1em}
ul{padding-left:1.2em}
</style></head><body>
<h1>powprime bench</h1>
<p>${esc(machineLine(m))}</p>
<table>${machine.map(([k, v]) => `<tr><th>${k}</th><td>${esc(v!)}</td></tr>`).join('')}</table>
${c ? `<p class="note">Changes are against the run of ${esc(c.oldDate)}.${c.machineNote ? ` ${esc(c.machineNote)}.` : ''}</p>` : ''}
${charts.map((svg) => `<div class="chart">${svg}</div>`).join('\n')}
<h2>Targets</h2>
<ul>${r.targets.map((t) => `<li>${esc(targetLine(t).slice(2))}</li>`).join('')}</ul>
<h2>All measurements</h2>
${rowsTable(r, c)}
${r.skipped.length ? `<h2>Skipped</h2><ul>${r.skipped.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>` : ''}
</body></html>
`;
}
