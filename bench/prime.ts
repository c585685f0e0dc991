/**
 * Safe primes, side by side in one run: one modular exponentiation (native,
 * native base-2, TS, bigint-crypto-utils, OpenSSL through node:crypto), and
 * the mean time per safe prime of a seeded search on all cores against
 * node:crypto generatePrimeSync(bits, {safe: true}).
 */
import { checkPrimeSync, generatePrimeSync } from 'node:crypto';
import { backendInfo } from '../src/backend.ts';
import { native } from '../src/native.ts';
import { poolSize } from '../src/pool/pool.ts';
import { modPow as modPowJs } from '../src/prime/bigint.ts';
import { searchSafePrimes } from '../src/prime/search.ts';
import { median } from './stats.ts';

export interface ModexpRow {
  bits: number;
  /** Median milliseconds for one exponentiation with a full-size exponent. */
  nativeMs: number | null;
  nativePow2Ms: number | null;
  tsMs: number;
  /** null when bigint-crypto-utils (a devDependency) is not installed. */
  bigintCryptoUtilsMs: number | null;
  /** OpenSSL: checkPrimeSync on a prime, divided by its Miller–Rabin rounds. */
  opensslRoundMs: number;
}

export interface SafePrimeRow {
  bits: number;
  /** Mean seconds per safe prime, native search on all cores. */
  nativeSeconds: number | null;
  nativePrimes: number;
  /** Mean seconds per node:crypto generatePrimeSync(bits, {safe: true}) (one core). */
  opensslSeconds: number | null;
  opensslPrimes: number;
}

export interface PrimeBenchResult {
  threads: number;
  modexp: ModexpRow[];
  safePrimes: SafePrimeRow[];
  targets: { what: string; value: number | null; goal: string; met: boolean | null }[];
  /** Rows left out, each with its reason. */
  skipped: string[];
}

type ModPow = (b: bigint, e: bigint, m: bigint) => bigint;

/** The peer library is a devDependency: a production install has none, and its row is skipped. */
async function loadBigintCryptoUtils(skipped: string[]): Promise<ModPow | null> {
  try {
    const bcu = (await import('bigint-crypto-utils')) as { modPow: (b: bigint, e: bigint, m: bigint) => bigint };
    return (b, e, m) => bcu.modPow(b, e, m);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    skipped.push('bigint-crypto-utils: not installed (a development dependency), its modexp column is skipped');
    return null;
  }
}

function timeMs(fn: () => unknown, runs: number): number {
  const xs: number[] = [];
  fn(); // warm-up
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

/** OpenSSL 3 raises Miller–Rabin checks to at least 64 (≤ 2048 bits) or 128 rounds. */
function opensslRounds(bits: number, asked: number): number {
  return Math.max(asked, bits > 2048 ? 128 : 64);
}

export async function runPrimeBench(opts: { quick: boolean; onStep?: (name: string) => void }): Promise<PrimeBenchResult> {
  const n = backendInfo().backend === 'native' ? native() : null;
  const modexp: ModexpRow[] = [];
  const skipped: string[] = [];
  const bcuModPow = await loadBigintCryptoUtils(skipped);
  for (const bits of [1024, 2048, 4096]) {
    opts.onStep?.(`modexp ${bits} bits`);
    const p = generatePrimeSync(bits, { bigint: true });
    const e = p - 1n;
    const b = (p * 7n) / 13n;
    const runs = opts.quick ? 3 : 7;
    const slow = bits >= 4096 ? 1 : runs;
    const checks = 128;
    modexp.push({
      bits,
      nativeMs: n ? timeMs(() => n.modPow(b, e, p), runs * 5) : null,
      nativePow2Ms: n ? timeMs(() => n.pow2Mod(e, p), runs * 5) : null,
      tsMs: timeMs(() => modPowJs(b, e, p), slow),
      bigintCryptoUtilsMs: bcuModPow ? timeMs(() => bcuModPow(b, e, p), slow) : null,
      opensslRoundMs: timeMs(() => checkPrimeSync(p, { checks }), runs) / opensslRounds(bits, checks),
    });
  }

  const threads = poolSize();
  const plan = opts.quick
    ? [
        { bits: 512, count: 24, ssl: 4 },
        { bits: 1024, count: 12, ssl: 2 },
      ]
    : [
        { bits: 512, count: 64, ssl: 8 },
        { bits: 1024, count: 32, ssl: 4 },
        { bits: 2048, count: 8, ssl: 2 },
      ];
  const safePrimes: SafePrimeRow[] = [];
  for (const { bits, count, ssl } of plan) {
    let nativeSeconds: number | null = null;
    if (n) {
      opts.onStep?.(`safe primes ${bits} bits, native on ${threads} threads`);
      const t = performance.now();
      let k = 0;
      for await (const _ of searchSafePrimes({ bits, count, seed: 20261121n, backend: 'native' })) k++;
      nativeSeconds = (performance.now() - t) / 1000 / k;
    }
    opts.onStep?.(`safe primes ${bits} bits, node:crypto`);
    const t = performance.now();
    for (let i = 0; i < ssl; i++) generatePrimeSync(bits, { safe: true });
    safePrimes.push({ bits, nativeSeconds, nativePrimes: n ? count : 0, opensslSeconds: (performance.now() - t) / 1000 / ssl, opensslPrimes: ssl });
  }

  const row = (bits: number): ModexpRow | undefined => modexp.find((r) => r.bits === bits);
  const sp = (bits: number): SafePrimeRow | undefined => safePrimes.find((r) => r.bits === bits);
  const m2048 = row(2048);
  const ratio = (a: number | null | undefined, b: number | null | undefined): number | null => (a != null && b != null ? a / b : null);
  const targets = [
    { what: '2048-bit modexp, native / OpenSSL per round', value: ratio(m2048?.nativeMs, m2048?.opensslRoundMs), goal: '≤ 1.0', le: 1.0 },
    // "Base-2 Fermat at least 15% faster still": than OpenSSL's round, as the modexp line compares.
    { what: '2048-bit base-2 Fermat, native / OpenSSL per round', value: ratio(m2048?.nativePow2Ms, m2048?.opensslRoundMs), goal: '≤ 0.85', le: 0.85 },
    { what: '2048-bit modexp, TS / bigint-crypto-utils', value: ratio(m2048?.tsMs, m2048?.bigintCryptoUtilsMs), goal: '≤ 1.0', le: 1.0 },
    { what: `1024-bit safe prime, s per prime on ${threads} threads`, value: sp(1024)?.nativeSeconds ?? null, goal: '≤ 0.1', le: 0.1 },
    { what: `2048-bit safe prime, s per prime on ${threads} threads`, value: sp(2048)?.nativeSeconds ?? null, goal: '≤ 2', le: 2 },
  ].map(({ le, ...t }) => ({ ...t, met: t.value === null ? null : t.value <= le }));
  return { threads, modexp, safePrimes, targets, skipped };
}
