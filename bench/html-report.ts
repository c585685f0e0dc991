/**
 * `powprime bench --report FILE.html`: one self-contained page (no scripts,
 * fonts or styles from elsewhere) with the machine, SVG charts and the
 * tables. Charts are Vega-Lite specs compiled and rendered to SVG by vega in
 * Node, headless; this module (and vega with it) is loaded only for --report.
 *
 * Each chart answers one question, said in its caption. An implementation has
 * one colour on the whole page; bars are on log scales where the figures span
 * decades (so a 0.7 M/s bar beside a 130 M/s one is still seen) and carry
 * their values.
 */
import type { BenchResult, BenchRow, BenchTarget } from './schema.ts';
import { formatChange, formatValue, headlineLines, targetLine, verdictLines, verdictOf, type Comparison } from './report.ts';

type Spec = Record<string, unknown>;

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Which implementation a series measures: the colour key of the whole page. */
export const IMPLEMENTATIONS = [
  { name: 'powprime native', colour: '#1f77b4', test: /^(native|powprime|measured|core )/i },
  { name: 'powprime TypeScript', colour: '#ff7f0e', test: /^ts\b/i },
  { name: 'powprime WebAssembly', colour: '#17becf', test: /^wasm\b/i },
  { name: 'OpenSSL', colour: '#d62728', test: /openssl/i },
  { name: 'node:crypto', colour: '#2ca02c', test: /node:crypto/i },
  { name: 'bigint-crypto-utils', colour: '#9467bd', test: /bigint-crypto-utils/i },
  { name: 'expected (theory)', colour: '#7f7f7f', test: /^expected/i },
] as const;
const OTHER = { name: 'other', colour: '#8c564b' };

export function implementationOf(series: string): { name: string; colour: string } {
  return IMPLEMENTATIONS.find((i) => i.test.test(series)) ?? OTHER;
}

const colourScale = {
  domain: [...IMPLEMENTATIONS.map((i) => i.name), OTHER.name],
  range: [...IMPLEMENTATIONS.map((i) => i.colour), OTHER.colour],
};

async function render(spec: Spec): Promise<string> {
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
  // vega-lite's warnings would land on the CLI's stderr; the specs are ours, checked by the report's tests.
  const quiet = {
    level: () => quiet,
    warn: () => quiet,
    info: () => quiet,
    debug: () => quiet,
    error: (...e: unknown[]) => {
      throw new Error(String(e[0]));
    },
  };
  const view = new vega.View(vega.parse(vl.compile(spec as never, { logger: quiet as never }).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

const CONFIG = { font: 'sans-serif', view: { stroke: null }, axis: { labelFontSize: 12, titleFontSize: 12 }, header: { labelFontSize: 13 } };

const label = (r: BenchRow): string => {
  const v = formatValue(r.value, r.unit);
  return r.unit === 'hashes/s' ? v : r.unit === 'tests' ? `${v} tests` : `${v} ${r.unit}`;
};

/** True when the values span more than a decade: a linear axis would hide the small ones. */
const spansDecades = (xs: number[]): boolean => xs.length > 1 && Math.max(...xs) / Math.min(...xs) > 10;

/**
 * Horizontal bars, one per series — per bit length and series where the rows
 * have sizes, smallest size first (one chart, not facets: a facet per size
 * leaves empty slots for the series another size has); colour by
 * implementation; the value printed at each bar's end.
 */
function barChart(rows: BenchRow[], opts: { title: string; axis: string; scale?: number }): Spec {
  const scale = opts.scale ?? 1;
  const sized = rows.filter((r) => r.value !== null && r.value > 0);
  const ordered = sized.some((r) => r.bits !== undefined) ? [...sized].sort((a, b) => (a.bits ?? 0) - (b.bits ?? 0)) : sized;
  const values = ordered.map((r) => ({
    key: r.bits !== undefined ? `${r.bits}-bit ${r.series}` : r.series,
    value: r.value! / scale,
    label: label(r),
    impl: implementationOf(r.series).name,
  }));
  const xs = values.map((v) => v.value);
  const log = spansDecades(xs);
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  // Room on the right for the value labels; a log axis starts below the smallest bar so it shows.
  const domain = log ? [10 ** Math.floor(Math.log10(lo / 2)), hi * 8] : [0, hi * 1.3];
  // On a log axis, ticks at the powers of ten only: the default 2-3-…-9 ticks crowd the labels.
  const decades = log ? Array.from({ length: Math.round(Math.log10(domain[1]! / domain[0]!)) + 1 }, (_, i) => domain[0]! * 10 ** i) : undefined;
  const x = {
    field: 'value',
    type: 'quantitative',
    title: `${opts.axis}${log ? ' (log scale)' : ''}`,
    scale: { type: log ? 'log' : 'linear', domain, nice: false },
    axis: decades ? { values: decades, grid: true, format: '~g' } : { grid: true },
  };
  // A bar starts at the axis' left end: zero on a linear axis, the domain's start on a log one (which has no zero).
  const x2 = { datum: domain[0] };
  const y = { field: 'key', type: 'nominal', title: null, sort: null, axis: { labelLimit: 0 } };
  return {
    title: opts.title,
    config: CONFIG,
    data: { values },
    width: 560,
    height: { step: 22 },
    layer: [
      { mark: { type: 'bar', tooltip: true }, encoding: { x, x2, y, color: { field: 'impl', type: 'nominal', scale: colourScale, legend: null } } },
      { mark: { type: 'text', align: 'left', dx: 4, fontSize: 12 }, encoding: { x, y, text: { field: 'label' } } },
    ],
  };
}

/** A target's distance from its goal, with 1 the line to reach whichever way the goal points. */
const score = (t: BenchTarget): number => (t.direction === 'min' ? t.value! / t.goal : t.goal / t.value!);

/**
 * One line per PoW series across nonce lengths (the length decides the
 * kernel's shape), coloured by implementation like every chart; OpenSSL's
 * one-core block rate, measured in the same run, is the dashed line.
 */
function layoutChart(rows: BenchRow[], openssl: number | null): Spec {
  const values = rows.filter((r) => r.value !== null).map((r) => ({ length: r.nonceLength, series: r.series, rate: r.value! / 1e6, impl: implementationOf(r.series).name }));
  return {
    title: 'Proof of work per nonce length: million hashes per second (dashed: OpenSSL, 1 core)',
    config: CONFIG,
    data: { values },
    width: 560,
    height: 280,
    layer: [
      {
        mark: { type: 'line', point: { size: 30 }, tooltip: true },
        encoding: {
          x: { field: 'length', type: 'quantitative', title: 'nonce length (bytes)', scale: { zero: false } },
          y: { field: 'rate', type: 'quantitative', scale: { type: 'log' }, title: 'M hashes/s (log scale)' },
          detail: { field: 'series', type: 'nominal' },
          color: { field: 'impl', type: 'nominal', scale: colourScale, title: null, legend: { orient: 'right', labelLimit: 220 } },
          strokeDash: { field: 'series', type: 'nominal', title: null, legend: { orient: 'right', labelLimit: 220 } },
        },
      },
      ...(openssl ? [{ mark: { type: 'rule', strokeDash: [4, 3], color: colourScale.range[2] }, encoding: { y: { datum: openssl / 1e6 } } }] : []),
    ],
  };
}

function targetChart(r: BenchResult): Spec {
  const values = r.targets.filter((t) => t.value !== null && t.value > 0).map((t) => ({ what: t.what, score: score(t), verdict: verdictOf(t), label: `${score(t).toFixed(2)}×` }));
  const xs = values.map((v) => v.score);
  const domain = [Math.min(0.5, ...xs) / 1.3, Math.max(2, ...xs) * 1.6];
  const x = { field: 'score', type: 'quantitative', title: 'ratio to goal: right of the line is met (log scale)', scale: { type: 'log', domain, nice: false } };
  const y = { field: 'what', type: 'nominal', title: null, sort: null, axis: { labelLimit: 0 } };
  return {
    title: 'Goals: how far past (or short of) each one',
    config: CONFIG,
    width: 420,
    height: { step: 26 },
    data: { values },
    // Points on a log scale, so 2× past the goal and 2× short of it sit equally far from the line at 1.
    layer: [
      { mark: { type: 'rule', strokeDash: [4, 3] }, encoding: { x: { datum: 1 } } },
      {
        mark: { type: 'point', filled: true, size: 120, tooltip: true },
        encoding: {
          x,
          y,
          color: { field: 'verdict', type: 'nominal', scale: { domain: ['met', 'not met', 'not judged'], range: ['#2ca02c', '#d62728', '#9e9e9e'] }, title: null, legend: { orient: 'bottom' } },
        },
      },
      { mark: { type: 'text', align: 'left', dx: 9, fontSize: 12 }, encoding: { x, y, text: { field: 'label' } } },
    ],
  };
}

interface Chart {
  spec: Spec;
  caption: string;
}

function charts(r: BenchResult): Chart[] {
  const of = (chart: BenchRow['chart']): BenchRow[] => r.rows.filter((x) => x.chart === chart && x.value !== null && x.value > 0);
  const out: Chart[] = [];
  const pow = of('pow-rate');
  if (pow.length) {
    out.push({
      spec: barChart(pow, { title: 'Proof of work: million hashes per second (longer is faster)', axis: 'M hashes/s', scale: 1e6 }),
      caption:
        'How fast each implementation searches for a proof of work on one nonce, through solvePow (worker threads included, so below the kernel-alone figures per nonce length); OpenSSL’s first bar is its raw SHA-256 block rate on one core, the ceiling for a one-core hashing loop, and its wall-time bars on one process and on all cores at once are the machine’s own scaling, the thread goal’s baseline.',
    });
  }
  const layouts = of('pow-layout');
  if (layouts.length) {
    out.push({
      spec: layoutChart(layouts, pow.find((x) => /openssl/i.test(x.series))?.max ?? null),
      caption:
        'What users get: the rate depends on where the nonce leaves the changing digits in SHA-256’s last block, so every nonce length is measured; the targets apply to the slowest length and the median.',
    });
  }
  const modexp = of('modexp');
  if (modexp.length) {
    out.push({
      spec: barChart(modexp, { title: 'Modular exponentiation: milliseconds each (shorter is faster)', axis: 'ms' }),
      caption: 'The step that dominates primality testing: one full-size exponentiation, by size. OpenSSL’s figure is one Miller–Rabin round of its prime check.',
    });
  }
  const primes = of('safe-prime');
  if (primes.length) {
    out.push({
      spec: barChart(primes, { title: 'Safe primes and DH parameters: seconds each (shorter is faster)', axis: 's' }),
      caption: 'What a user waits for: one safe prime (or one `dhparam` file) by size. powprime uses every core; node:crypto and openssl dhparam use one.',
    });
  }
  const tests = of('fermat-tests');
  if (tests.length) {
    out.push({
      spec: barChart(tests, { title: 'Fermat tests per safe prime found: measured against theory', axis: 'tests' }),
      caption: 'Why a safe prime takes the time it does: candidates surviving the sieve, tested per prime found. Bars close to the grey (Hardy–Littlewood) ones mean the sieve wastes nothing.',
    });
  }
  const cost = of('fermat-cost');
  if (cost.length) {
    out.push({
      spec: barChart(cost, { title: 'Core time per Fermat test: milliseconds', axis: 'ms' }),
      caption: 'The other factor of the time per prime: core time per tested candidate, sieving included (wall time × threads ÷ tests).',
    });
  }
  if (r.targets.some((t) => t.value !== null && t.value > 0)) {
    out.push({
      spec: targetChart(r),
      caption: 'Each goal as measured here: the ratio of the figure to its goal, so 1 is exactly on the goal. Grey: missed on a busy machine, not judged.',
    });
  }
  return out;
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
  const rendered = await Promise.all(charts(r).map(async (ch) => ({ svg: await render(ch.spec), caption: ch.caption })));
  const m = r.machine;
  const machine = [
    ['CPU', `${m.cpu} (${m.cores} cores, ${m.platform})`],
    ['CPU features used', m.features.join(', ') || 'none reported'],
    ['kernels', `SHA-256 ${m.kernels.sha256}; bignum ${m.kernels.bignum}`],
    ['Node', m.node],
    ['OpenSSL', m.openssl ?? 'not found'],
    ['powprime', m.powprime],
    ['date', m.date],
    ['mode', r.quick ? '--quick (small sizes, few runs)' : 'full'],
    ...(r.noise ? [['machine load', `${r.noise.loadBefore.toFixed(2)} (others' runnable tasks before the run, ${r.noise.cores} cores)`]] : []),
    // Why the run was judged busy, which the load alone may not show (others during it, or runs far apart).
    ...(r.noise?.busy ? [['busy', r.noise.reasons.join('; ')]] : []),
  ];
  const used = new Set(r.rows.map((x) => implementationOf(x.series).name));
  const legend = [...IMPLEMENTATIONS, OTHER]
    .filter((i) => used.has(i.name))
    .map((i) => `<span class="key"><span class="swatch" style="background:${i.colour}"></span>${esc(i.name)}</span>`)
    .join(' ');
  const verdict = verdictLines(r);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>powprime bench — ${esc(m.cpu)} — ${esc(m.date)}</title>
<style>
body{font-family:sans-serif;margin:2em auto;max-width:62em;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left}
th{background:#f3f3f3}.chart{margin:2em 0 1em}.caption{margin:.2em 0 0;color:#444;max-width:48em}
.note{background:#fff4e0;border:1px solid #e0b060;padding:.5em 1em}.verdict{font-size:1.1em}
.key{margin-right:1.2em;white-space:nowrap}.swatch{display:inline-block;width:.9em;height:.9em;margin-right:.35em;vertical-align:-.1em}
ul{padding-left:1.2em}
</style></head><body>
<h1>powprime bench</h1>
<table>${machine.map(([k, v]) => `<tr><th>${k}</th><td>${esc(v!)}</td></tr>`).join('')}</table>
${
  r.pow
    ? headlineLines(r.pow)
        .map((l) => `<p>${esc(l)}</p>`)
        .join('')
    : ''
}
<div class="${r.noise?.busy ? 'note ' : ''}verdict">${verdict.map((l) => `<p>${esc(l)}</p>`).join('')}</div>
${c ? `<p class="note">Changes are against the run of ${esc(c.oldDate)}.${c.machineNote ? ` ${esc(c.machineNote)}.` : ''}</p>` : ''}
<p>Colours, the same in every chart: ${legend}</p>
${rendered.map((ch) => `<div class="chart">${ch.svg}<p class="caption">${esc(ch.caption)}</p></div>`).join('\n')}
<h2>Goals</h2>
<ul>${r.targets.map((t) => `<li>${esc(targetLine(t).slice(2))}</li>`).join('')}</ul>
<h2>All measurements</h2>
${rowsTable(r, c)}
${r.skipped.length ? `<h2>Skipped</h2><ul>${r.skipped.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>` : ''}
</body></html>
`;
}
