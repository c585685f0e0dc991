/**
 * Proof-of-work rate per nonce length. The kernel's work depends on where the
 * changing message word sits in the final block, and that follows from the
 * nonce's length mod 64 (src/pow/order.ts), so one nonce measures one layout
 * only; users bring every length. This walks a list of lengths with nonces
 * drawn from a fixed seed (runs compare) and times one thread of the native
 * kernel (or the TS or WebAssembly kernel) on each, in this thread, with
 * difficulty 64 so no candidate is ever accepted and every one is hashed.
 *
 * Run on its own: `npx tsx bench/pow-layouts.ts [--kernel ID] [--ts] [--wasm] [--from 1 --to 128 | --lengths 3,44,…] [--passes 3]`
 * prints one line per length, the OpenSSL block rate measured in the same
 * run, and min / median / max with their ratios.
 */
import { native } from '../src/native.ts';
import { searchRangeJs } from '../src/pow/kernel.ts';
import { PowTarget } from '../src/pow/target.ts';
import { wasmKernel, wasmLoadError } from '../src/pow/wasm-kernel.ts';
import { opensslSha256BlockRate } from './openssl.ts';
import { spread } from './schema.ts';

/** Fixed so that runs compare: nonce contents are not what is measured, their length is. */
export const LAYOUT_SEED = 0x5eed_0022;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';

/** An ASCII nonce of `length` characters, the same for the same (length, seed). */
export function layoutNonce(length: number, seed = LAYOUT_SEED): string {
  // mulberry32: a few lines, enough to vary the bytes; nothing here needs a strong generator.
  let s = (seed ^ Math.imul(length, 0x9e3779b9)) >>> 0;
  let out = '';
  for (let i = 0; i < length; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out += ALPHABET[((t ^ (t >>> 14)) >>> 0) % ALPHABET.length];
  }
  return out;
}

export interface LayoutRate {
  length: number;
  /** Index of the message word that changes fastest (the kernel's shape). */
  fast: number;
  /** Best of the passes, hashes per second. */
  rate: number;
  /** The passes it took, when more than asked (far below the median, or under the floor). */
  passes?: number;
}

export interface LayoutOptions {
  lengths: readonly number[];
  /** A native searcher id (`avx512`, `sha-ni-x5`, …), 'best', 'ts' for the TS kernel or 'wasm' for the WebAssembly one. */
  kernel: string;
  /**
   * Passes over every length; each length's figure is the best of its
   * passes. The best, not the median: on a shared machine a pass loses
   * time to other processes, never gains it, so the fastest pass is the
   * closest to the layout's own rate (quote medians over repeated runs).
   */
  passes: number;
  /** Wall time to aim at per length and pass. */
  msPerLength: number;
  /**
   * Hashes per second a verdict asks of every length (the goal against
   * OpenSSL's best run): a length under it gets the same second look as one
   * far below the median, since its figure decides the verdict.
   */
  floor?: number;
}

/** Hashes per second of one search over `count` candidates from counter 0 (the first window). */
function timeOne(target: PowTarget, kernel: string, count: number): number {
  const n = native();
  const t0 = performance.now();
  if (kernel === 'ts') {
    searchRangeJs(target, 0n, BigInt(count));
  } else if (kernel === 'wasm') {
    const wasm = wasmKernel();
    if (!wasm) throw new Error(`the WebAssembly kernel is not loaded: ${wasmLoadError()}`);
    wasm.search(target, 0n, BigInt(count));
  } else {
    if (!n) throw new Error('the native addon is not loaded');
    const w = target.window(0n);
    const { digitsEnd, digitsInBlock } = target.layout;
    n.powSearch(w.mid, w.block, digitsEnd, digitsInBlock, 64, 0n, BigInt(count), ...(kernel === 'best' ? [] : [kernel]));
  }
  return count / ((performance.now() - t0) / 1000);
}

/**
 * Best single-thread rate for each length. The candidate count per length
 * is sized from a first short run so that each measurement lasts about
 * msPerLength whatever the kernel.
 */
export function measureLayouts(opts: LayoutOptions): LayoutRate[] {
  const targets = opts.lengths.map((length) => new PowTarget(layoutNonce(length), 64));
  // Size the runs on the first length (and warm the kernel up).
  const first = opts.kernel === 'ts' ? 20_000 : opts.kernel === 'wasm' ? 100_000 : 500_000;
  const probe = Math.max(1000, Math.round((timeOne(targets[0]!, opts.kernel, first) * opts.msPerLength) / 1000));
  const samples: number[][] = targets.map(() => []);
  for (let p = 0; p < opts.passes; p++) {
    for (const [i, t] of targets.entries()) samples[i]!.push(timeOne(t, opts.kernel, probe));
  }
  // A second look at lengths far below the median, or under the floor: a
  // burst of other work that covered all of one length's passes looks like a
  // slow layout. More passes cannot make a length faster than it is (each is
  // the best of its own runs), so a layout that really is slow stays slow.
  const median = spread(samples.map((x) => Math.max(...x))).median!;
  const low = Math.max(0.9 * median, opts.floor ?? 0);
  targets.forEach((t, i) => {
    for (let p = 0; p < 2 * opts.passes && Math.max(...samples[i]!) < low; p++) samples[i]!.push(timeOne(t, opts.kernel, probe));
  });
  return targets.map((t, i) => ({
    length: opts.lengths[i]!,
    fast: (t.layout.digitsEnd - 1) >> 2,
    rate: spread(samples[i]!).max!,
    ...(samples[i]!.length > opts.passes ? { passes: samples[i]!.length } : {}),
  }));
}

/** min / median / max over layouts. */
export function layoutSpread(rates: readonly LayoutRate[]): { min: number; median: number; max: number } {
  const s = spread(rates.map((r) => r.rate));
  return { min: s.min!, median: s.median!, max: s.max! };
}

async function main(argv: string[]): Promise<void> {
  const arg = (name: string, dflt: string): string => {
    const i = argv.indexOf(name);
    return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : dflt;
  };
  const kernel = argv.includes('--ts') ? 'ts' : argv.includes('--wasm') ? 'wasm' : arg('--kernel', 'best');
  const from = Number(arg('--from', '1'));
  const to = Number(arg('--to', '128'));
  const passes = Number(arg('--passes', '3'));
  const ms = Number(arg('--ms', kernel === 'ts' || kernel === 'wasm' ? '60' : '25'));
  const list = arg('--lengths', '');
  const lengths = list ? list.split(',').map(Number) : Array.from({ length: to - from + 1 }, (_, i) => from + i);
  // OpenSSL is timed before and after, and its best run kept, for the same reason as the passes.
  const sslRates: number[] = [];
  const sslRun = async (): Promise<void> => {
    const r = await opensslSha256BlockRate(1);
    if (r.rate !== null) sslRates.push(r.rate);
  };
  await sslRun();
  const rates = measureLayouts({ lengths, kernel, passes, msPerLength: ms });
  await sslRun();
  await sslRun();
  const base = sslRates.length ? Math.max(...sslRates) : null;
  const kernelName = kernel === 'best' ? ((native()?.backendInfo() as { sha256?: string } | undefined)?.sha256 ?? 'native') : kernel;
  for (const r of rates) {
    process.stdout.write(`L=${String(r.length).padStart(3)} F=${String(r.fast).padStart(2)}  ${(r.rate / 1e6).toFixed(1).padStart(6)} M/s${base ? `  ${(r.rate / base).toFixed(2)}×` : ''}\n`);
  }
  const s = layoutSpread(rates);
  const x = (v: number): string => (base ? ` (${(v / base).toFixed(2)}×)` : '');
  process.stdout.write(`kernel ${kernelName}; openssl ${base ? `${(base / 1e6).toFixed(1)} M blocks/s (1 core)` : 'not measured'}\n`);
  process.stdout.write(`min ${(s.min / 1e6).toFixed(1)}${x(s.min)}  median ${(s.median / 1e6).toFixed(1)}${x(s.median)}  max ${(s.max / 1e6).toFixed(1)}${x(s.max)} M hashes/s\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
