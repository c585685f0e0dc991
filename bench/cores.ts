/**
 * Whether the cores run alike. On a virtual machine a core can share its
 * hardware with another guest's busy thread: the load average inside does not
 * see it, yet a throughput-bound kernel loses up to 40 % on that core (OpenSSL's
 * one-stream SHA-256, bound by latency, loses less), so the ratio of two threads
 * to one, or of the kernel to OpenSSL, then measures the neighbour. This times
 * the native PoW kernel on each core in turn, in a child process pinned with
 * `taskset` (Linux), then on all of them at once, for the report to show
 * beside the verdict; where `taskset` or the addon is missing it says nothing.
 *
 * Run as a script (`node bench/cores.ts --probe`), it says `ready` once loaded,
 * then, given a line on its stdin, prints the rate of the process's own core.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { native } from '../src/native.ts';
import { measureLayouts } from './pow-layouts.ts';
import type { CoreProbe } from './schema.ts';

/** Cores whose rates differ by more than this share (alone, or a core together against alone) do not run alike. */
export const MAX_CORE_GAP = 0.15;

/** The most cores probed (the first allowed ones): each costs a process start, twice a run. */
const MAX_PROBED = 8;

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

/** This file, run again as a probe child. */
const self = fileURLToPath(import.meta.url);
// Under a TS runner (tests, npx tsx) this file is a .ts source; from dist/ it is plain JS.
const probeArgs = [...(self.endsWith('.ts') ? ['--import', 'tsx'] : []), self, '--probe'];

/** A probe child, loaded and waiting for its start: `go()` starts its timing; `rate` is what it measured, or null when it failed. */
interface ProbeChild {
  ready: Promise<void>;
  go(): void;
  rate: Promise<number | null>;
}

/** A probe child pinned to `cpu`. It says `ready` once loaded and times the kernel when told to go on its stdin. */
function probeChild(cpu: number): ProbeChild {
  const child = spawn('taskset', ['-c', String(cpu), process.execPath, ...probeArgs], { stdio: ['pipe', 'pipe', 'ignore'], timeout: 30_000 });
  child.stdin.on('error', () => {}); // a child that died before its start: its rate is null
  let out = '';
  let markReady = (): void => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (out.startsWith('ready\n')) markReady();
  });
  const rate = new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(null));
    child.on('close', (code) => {
      markReady(); // a child that never got ready must not hold the others
      const r = Number(out.replace(/^ready\n/, '').trim());
      resolve(code === 0 && out.startsWith('ready\n') && r > 0 ? r : null);
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), rate };
}

/** Rates of one child a CPU, started together once every one has loaded (a child's start-up takes a second or two, its timing well under one). */
async function probeTogether(cpus: number[]): Promise<(number | null)[]> {
  const children = cpus.map(probeChild);
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.go();
  return Promise.all(children.map((c) => c.rate));
}

/**
 * Each allowed core (the first eight) timed alone, one after the other,
 * then all at once: a core slower than the others alone is of another kind
 * or has a neighbour; cores slower together than alone share something (SMT
 * siblings, a power limit, or a host that places busy virtual cores on busy
 * hardware), which caps what more threads can give. Null where it cannot be
 * measured (no `taskset`, no addon, one core, a child that failed).
 */
export async function probeCores(): Promise<CoreProbe | null> {
  const cpus = allowedCpus().slice(0, MAX_PROBED);
  if (cpus.length < 2 || !native()) return null;
  const alone: (number | null)[] = [];
  for (const cpu of cpus) alone.push(...(await probeTogether([cpu])));
  const together = await probeTogether(cpus);
  const all = (xs: (number | null)[]): xs is number[] => xs.every((x) => x !== null);
  return all(alone) && all(together) ? { cpus, alone, together } : null;
}

const mhs = (x: number): string => (x / 1e6).toFixed(1);

/**
 * What the cores' rates say, or null when they ran alike, alone and
 * together. A fact to read beside the figures, not a verdict on them: cores
 * can differ by design (hybrid cores, SMT siblings, all-core clocks below
 * one-core clocks, a CPU quota) as well as through a neighbour.
 */
export function coreGap(probe: CoreProbe | null): string | null {
  if (!probe || probe.alone.length < 2) return null;
  const { alone, together } = probe;
  const max = Math.max(...alone);
  const min = Math.min(...alone);
  if (min < (1 - MAX_CORE_GAP) * max) {
    const slow = alone.indexOf(min);
    const fast = alone.indexOf(max);
    return `CPU ${probe.cpus[slow]} ran the PoW kernel alone ${Math.round((1 - min / max) * 100)}% slower than CPU ${probe.cpus[fast]} (${mhs(min)} against ${mhs(max)} M hashes/s): cores of different kinds, or something outside this system sharing its hardware`;
  }
  const worst = together.reduce((w, x, i) => (x / alone[i]! < together[w]! / alone[w]! ? i : w), 0);
  const kept = together[worst]! / alone[worst]!;
  if (kept >= 1 - MAX_CORE_GAP) return null;
  return `with every probed core running the PoW kernel at once, CPU ${probe.cpus[worst]} ran ${Math.round((1 - kept) * 100)}% slower than alone (${mhs(together[worst]!)} against ${mhs(alone[worst]!)} M hashes/s): the cores share something (SMT siblings, an all-core clock or power limit, a CPU quota, or a host that puts busy virtual cores on busy hardware), so more threads cannot scale fully here`;
}

if (process.argv.includes('--probe') && self === process.argv[1]) {
  // Two layouts, best of three short passes: long enough to see a neighbour,
  // short enough to repeat. The kernels are ranked and warmed before `ready`,
  // so children told to go together time the kernel together.
  const measure = (passes: number, ms: number): number => Math.min(...measureLayouts({ lengths: [20, 44], kernel: 'best', passes, msPerLength: ms }).map((r) => r.rate));
  measure(1, 5);
  process.stdout.write('ready\n');
  process.stdin.once('data', () => {
    process.stdout.write(`${measure(3, 60)}\n`);
    process.stdin.destroy();
  });
}
