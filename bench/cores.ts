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
 * then, for each line on its stdin, prints the rate of the process's own core,
 * and ends with its stdin.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ignoreErrorEvents } from '../src/ignored-rejection.ts';
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

/** A probe child, loaded and waiting: `time()` has it time the kernel once (null when it failed or died); `end()` lets it exit. */
interface ProbeChild {
  ready: Promise<boolean>;
  time(): Promise<number | null>;
  end(): void;
}

/** A probe child pinned to `cpu`. It says `ready` once loaded and times the kernel each time it is told to go on its stdin. */
function probeChild(cpu: number): ProbeChild {
  const child = spawn('taskset', ['-c', String(cpu), process.execPath, ...probeArgs], { stdio: ['pipe', 'pipe', 'ignore'], timeout: 30_000 });
  ignoreErrorEvents(child.stdin, 'a write to a child that died: its close gives its rates as null');
  const lines: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let closed = false;
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const close = (): void => {
    closed = true; // a child that never got ready, or died, must not hold the others
    for (const waiter of waiting.splice(0)) waiter(null);
  };
  child.on('error', close);
  child.on('close', close);
  const nextLine = (): Promise<string | null> => (lines.length ? Promise.resolve(lines.shift()!) : closed ? Promise.resolve(null) : new Promise((resolve) => waiting.push(resolve)));
  const ready = nextLine().then((line) => line === 'ready');
  return {
    ready,
    async time() {
      if (!(await ready) || closed) return null;
      child.stdin.write('go\n');
      const r = Number(await nextLine());
      return r > 0 ? r : null;
    },
    end: () => void child.stdin.end(),
  };
}

/**
 * Each allowed core (the first eight) timed alone, one after the other,
 * then all at once: a core slower than the others alone is of another kind
 * or has a neighbour; cores slower together than alone share something (SMT
 * siblings, a power limit, or a host that places busy virtual cores on busy
 * hardware), which caps what more threads can give. One child a core, all
 * loaded first (a child's start-up takes a second or two, its timing well
 * under one), each timing alone while the others wait, then all of them
 * together. Null where it cannot be measured (no `taskset`, no addon, one
 * core, a child that failed).
 */
export async function probeCores(): Promise<CoreProbe | null> {
  const cpus = allowedCpus().slice(0, MAX_PROBED);
  if (cpus.length < 2 || !native()) return null;
  const children = cpus.map(probeChild);
  try {
    if (!(await Promise.all(children.map((c) => c.ready))).every(Boolean)) return null;
    const alone: (number | null)[] = [];
    for (const c of children) alone.push(await c.time());
    const together = await Promise.all(children.map((c) => c.time()));
    const all = (xs: (number | null)[]): xs is number[] => xs.every((x) => x !== null);
    return all(alone) && all(together) ? { cpus, alone, together } : null;
  } finally {
    for (const c of children) c.end();
  }
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
  // so children told to go together time the kernel together. The process
  // ends when its stdin does.
  const measure = (passes: number, ms: number): number => Math.min(...measureLayouts({ lengths: [20, 44], kernel: 'best', passes, msPerLength: ms }).map((r) => r.rate));
  measure(1, 5);
  process.stdout.write('ready\n');
  createInterface({ input: process.stdin }).on('line', () => process.stdout.write(`${measure(3, 60)}\n`));
}
