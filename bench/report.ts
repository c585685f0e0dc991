import type { PrimeBenchResult } from './prime.ts';
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

const ms = (x: number | null): string => (x === null ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(3));
const sec = (x: number | null): string => (x === null ? '—' : x.toFixed(3));

/** The safe-prime tables `powprime bench` prints (also pasted into the README). */
export function formatPrimeReport(res: PrimeBenchResult): string {
  const lines = [
    'Modular exponentiation, full-size exponent: median ms per exponentiation',
    '',
    '| bits | native | native base-2 | TS | bigint-crypto-utils | OpenSSL per MR round |',
    '| ---- | ------ | ------------- | -- | ------------------- | -------------------- |',
    ...res.modexp.map((r) => `| ${r.bits} | ${ms(r.nativeMs)} | ${ms(r.nativePow2Ms)} | ${ms(r.tsMs)} | ${ms(r.bigintCryptoUtilsMs)} | ${ms(r.opensslRoundMs)} |`),
    '',
    `Safe primes: mean seconds per prime (native search on ${res.threads} threads; node:crypto generatePrimeSync safe on 1 core)`,
    '',
    '| bits | native | primes | node:crypto | primes | speed-up |',
    '| ---- | ------ | ------ | ----------- | ------ | -------- |',
    ...res.safePrimes.map(
      (r) =>
        `| ${r.bits} | ${sec(r.nativeSeconds)} | ${r.nativePrimes} | ${sec(r.opensslSeconds)} | ${r.opensslPrimes} | ${
          r.nativeSeconds && r.opensslSeconds ? `${(r.opensslSeconds / r.nativeSeconds).toFixed(1)}×` : '—'
        } |`,
    ),
    '',
    'Targets (measured in this run):',
    '',
    ...res.targets.map((t) => `- ${t.what}: ${t.value === null ? 'not measured' : t.value.toFixed(3)} (goal ${t.goal}) ${t.met === null ? '' : t.met ? 'met' : 'NOT met'}`),
    ...(res.skipped.length ? ['', ...res.skipped.map((s) => `Skipped: ${s}`)] : []),
  ];
  return lines.join('\n');
}
