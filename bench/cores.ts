/**
 * Whether the cores run alike. On a virtual machine a core can share its
 * hardware with another guest's busy thread: the load average inside does not
 * see it, yet a throughput-bound kernel loses up to 40 % on that core (OpenSSL's
 * one-stream SHA-256, bound by latency, loses less), so the ratio of two threads
 * to one, or of the kernel to OpenSSL, then measures the neighbour. This times
 * the native PoW kernel on each core in turn, in a child process pinned with
 * `taskset` (Linux); where `taskset` or the addon is missing it says nothing.
 *
 * Run as a script (`node bench/cores.ts --probe`), it prints the rate of the
 * process's own core.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { native } from '../src/native.ts';
import { measureLayouts } from './pow-layouts.ts';

/** Cores whose best rates differ by more than this share of the faster one do not run alike. */
export const MAX_CORE_GAP = 0.15;

/** The CPUs this process may run on, from /proc (Linux), else none. */
function allowedCpus(): number[] {
  let list: string;
  try {
    list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
  } catch {
    return [];
  }
  const cpus: number[] = [];
  for (const part of list.split(',')) {
    const [a, b] = part.split('-').map(Number);
    if (a === undefined || !Number.isInteger(a)) continue;
    for (let c = a; c <= (b ?? a) && cpus.length < 256; c++) cpus.push(c);
  }
  return cpus;
}

/**
 * The native kernel's best rate (hashes/s) on each allowed core, or null
 * where it cannot be measured (no `taskset`, no addon, one core, a child that
 * failed). Each core gets a fresh process, one after the other.
 */
export function coreRates(): number[] | null {
  const cpus = allowedCpus();
  if (cpus.length < 2 || !native()) return null;
  const self = fileURLToPath(import.meta.url);
  // Under a TS runner (tests, npx tsx) this file is a .ts source; from dist/ it is plain JS.
  const execArgv = self.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const rates: number[] = [];
  for (const cpu of cpus) {
    const r = spawnSync('taskset', ['-c', String(cpu), process.execPath, ...execArgv, self, '--probe'], { encoding: 'utf8', timeout: 30_000 });
    const rate = Number(r.stdout.trim());
    if (r.status !== 0 || !(rate > 0)) return null;
    rates.push(rate);
  }
  return rates;
}

/** Why the cores' rates say the machine was not quiet, or null when they ran alike. */
export function coreGap(rates: readonly number[] | null): string | null {
  if (!rates || rates.length < 2) return null;
  const max = Math.max(...rates);
  const min = Math.min(...rates);
  if (min >= (1 - MAX_CORE_GAP) * max) return null;
  const slow = rates.indexOf(min);
  const fast = rates.indexOf(max);
  return `core ${slow} ran the PoW kernel ${Math.round((1 - min / max) * 100)}% slower than core ${fast} (${(min / 1e6).toFixed(1)} against ${(max / 1e6).toFixed(1)} M hashes/s): something outside this system shares its hardware`;
}

if (process.argv.includes('--probe') && fileURLToPath(import.meta.url) === process.argv[1]) {
  // Two layouts, best of three short passes: long enough to see a neighbour, short enough to repeat.
  const rates = measureLayouts({ lengths: [20, 44], kernel: 'best', passes: 3, msPerLength: 60 });
  process.stdout.write(`${Math.min(...rates.map((r) => r.rate))}\n`);
}
