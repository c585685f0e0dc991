/**
 * Proof-of-work throughput, side by side in one run: native (1 thread, all
 * threads), the TS kernel, node:crypto hashing one candidate at a time, and
 * OpenSSL's SHA-256 block rate. Every search uses difficulty 64, so no
 * candidate is ever accepted and each measures a fixed amount of work.
 */
import { createHash } from 'node:crypto';
import { Bench } from 'tinybench';
import { backendInfo } from '../src/backend.ts';
import { PowExhaustedError } from '../src/errors.ts';
import { candidate, powLayout } from '../src/pow/order.ts';
import { solvePow } from '../src/pow/solve.ts';
import { poolSize } from '../src/pool/pool.ts';
import { opensslSha256BlockRate } from './openssl.ts';
import { ratio, spread, target, type BenchRow, type BenchTarget } from './schema.ts';

export interface PowBenchResult {
  rows: BenchRow[];
  targets: BenchTarget[];
  skipped: string[];
}

const NONCE = 'powprime-bench-nonce';

async function exhaust(batch: number, threads: number, backend: 'native' | 'js'): Promise<void> {
  try {
    await solvePow({ nonce: NONCE, difficulty: 64 }, { threads, backend, maxAttempts: batch });
  } catch (err) {
    if (!(err instanceof PowExhaustedError)) throw err;
  }
}

function nodeCryptoLoop(batch: number): void {
  const layout = powLayout(Buffer.byteLength(NONCE));
  for (let k = 0; k < batch; k++) createHash('sha256').update(NONCE + candidate(layout, BigInt(k))).digest();
}

const UNIT = 'hashes/s';

/**
 * The single-thread goal against OpenSSL's block rate depends on the kernel:
 * 32 AVX-512 lanes reach about 5× (measured on Zen 5), SHA-NI about 2×, and a
 * CPU with neither has no goal beyond keeping up with OpenSSL.
 */
const NATIVE_GOAL = (kernel: string): number => (kernel.startsWith('avx512') ? 4.5 : kernel.startsWith('sha-ni') ? 2.0 : 1.0);

export async function runPowBench(opts: { quick: boolean; onStep?: (name: string) => void }): Promise<PowBenchResult> {
  const info = backendInfo();
  const hasNative = info.backend === 'native';
  const all = poolSize();
  const scale = opts.quick ? 1 : 4;
  const time = opts.quick ? 300 : 2000;
  const tasks: { name: string; series: string; batch: number; fn: () => unknown }[] = [
    { name: `native 1 thread (${info.sha256})`, series: 'native 1 thread', batch: 25_000_000 * scale, fn: () => exhaust(25_000_000 * scale, 1, 'native') },
    { name: `native ${all} threads`, series: `native ${all} threads`, batch: 50_000_000 * scale, fn: () => exhaust(50_000_000 * scale, all, 'native') },
    { name: 'ts 1 thread', series: 'ts 1 thread', batch: 4_000_000 * scale, fn: () => exhaust(4_000_000 * scale, 1, 'js') },
    { name: 'node:crypto createHash per candidate', series: 'node:crypto', batch: 200_000 * scale, fn: () => nodeCryptoLoop(200_000 * scale) },
  ];
  const rows: BenchRow[] = [];
  const skipped: string[] = [];
  const row = (series: string, what: string, rates: number[], note?: string): BenchRow => {
    const sp = spread(rates);
    return { suite: 'pow', chart: 'pow-rate', series, what, value: sp.median, unit: UNIT, ...sp, ...(note ? { note } : {}) };
  };
  for (const t of tasks) {
    if (t.name.startsWith('native') && !hasNative) {
      skipped.push(`${t.name}: ${info.nativeError}`);
      rows.push(row(t.series, t.name, [], `skipped: ${info.nativeError}`));
      continue;
    }
    opts.onStep?.(t.name);
    const bench = new Bench({ time, iterations: opts.quick ? 3 : 5, warmup: true, warmupIterations: 1, warmupTime: 0, throws: true, retainSamples: true });
    bench.add(t.name, t.fn);
    await bench.run();
    const r = bench.tasks[0]!.result;
    if (r.state !== 'completed') throw new Error(`benchmark '${t.name}' did not complete (${r.state})`);
    // Each sample's rate: a fixed number of hashes over its time.
    rows.push(row(t.series, t.name, [...(r.latency.samples ?? [])].map((ms) => t.batch / (ms / 1000))));
  }
  opts.onStep?.('openssl speed -evp sha256');
  const sslRuns: number[] = [];
  let sslNote: string | undefined;
  for (let i = 0; i < (opts.quick ? 1 : 3); i++) {
    const r = await opensslSha256BlockRate(opts.quick ? 1 : 2);
    if (r.rate === null) {
      sslNote = `skipped: ${r.reason}`;
      skipped.push(`openssl speed: ${r.reason}`);
      break;
    }
    sslRuns.push(r.rate);
  }
  rows.push(row('openssl (1 core)', 'openssl sha256 blocks/s (1 core)', sslRuns, sslNote));

  const rate = (prefix: string): number | null => rows.find((r) => r.what.startsWith(prefix))?.value ?? null;
  const native1 = rate('native 1 thread');
  const nativeAll = rate(`native ${all} threads`);
  const ts = rate('ts 1 thread');
  return {
    rows,
    targets: [
      target(`native 1 thread (${info.sha256}) / openssl block rate`, ratio(native1, rate('openssl')), '×', NATIVE_GOAL(info.sha256), 'min'),
      target(`native ${all} threads / native 1 thread`, ratio(nativeAll, native1), '×', all >= 2 ? 1.8 : 1, 'min'),
      target('ts 1 thread', ts === null ? null : ts / 1e6, 'M hashes/s', 2.5, 'min'),
      target('ts 1 thread / node:crypto per candidate', ratio(ts, rate('node:crypto')), '×', 1, 'min'),
    ],
    skipped,
  };
}
