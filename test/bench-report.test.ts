// The benchmark runner's result schema, its comparison and its HTML report.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { htmlReport, implementationOf } from '../bench/html-report.ts';
import { probeCores } from '../bench/cores.ts';
import { cpuMark, judgeNoise, loadNow, othersDuring, withVerdicts } from '../bench/noise.ts';
import { compareRuns, formatReport } from '../bench/report.ts';
import { SCHEMA_VERSION, target, type BenchResult, type BenchRow } from '../bench/schema.ts';
import { hasNative } from './helpers/backends.ts';
import { runCli } from './helpers/cli.ts';
import { hasCommand } from './helpers/oracles.ts';
import { tempDir } from './helpers/tmp.ts';

const row = (r: Partial<BenchRow> & Pick<BenchRow, 'what' | 'value' | 'unit' | 'chart' | 'series'>): BenchRow => ({
  suite: r.chart.startsWith('pow') ? 'pow' : 'prime',
  runs: 3,
  min: r.value,
  median: r.value,
  max: r.value,
  ...r,
});

/** A hand-made result: the report is checked on known figures, not on a run's. */
function sample(over: Partial<BenchResult['machine']> = {}, scale = 1): BenchResult {
  return {
    schema: SCHEMA_VERSION,
    quick: true,
    machine: {
      cpu: 'Test CPU 9000',
      cores: 2,
      platform: 'linux-x64',
      features: ['shaNi', 'avx2', 'adx'],
      kernels: { sha256: 'sha-ni x2', bignum: 'mulx/adx' },
      node: 'v20.19.0',
      openssl: 'OpenSSL 3.0.0',
      powprime: '0.1.0',
      date: '2026-11-23T00:00:00.000Z',
      ...over,
    },
    rows: [
      row({ chart: 'pow-rate', series: 'native 1 thread', what: 'native 1 thread (sha-ni x2)', value: 50e6 * scale, unit: 'hashes/s' }),
      row({ chart: 'pow-rate', series: 'native 2 threads', what: 'native 2 threads', value: 130e6 * scale, unit: 'hashes/s' }),
      row({ chart: 'pow-rate', series: 'node:crypto', what: 'node:crypto createHash per candidate', value: 0.69e6, unit: 'hashes/s' }),
      row({ chart: 'pow-rate', series: 'openssl (1 core)', what: 'openssl sha256 blocks/s (1 core)', value: 25e6, unit: 'hashes/s' }),
      ...[3, 44, 60].map((n) => row({ chart: 'pow-layout', series: 'native 1 thread', nonceLength: n, what: `native 1 thread, nonce length ${n}`, value: (40e6 + n * 1e5) * scale, unit: 'hashes/s' })),
      row({ chart: 'modexp', series: 'native', bits: 1024, what: 'modexp 1024 bits, native', value: 0.3, unit: 'ms' }),
      row({ chart: 'modexp', series: 'native', bits: 2048, what: 'modexp 2048 bits, native', value: 1.1, unit: 'ms' }),
      row({ chart: 'modexp', series: 'OpenSSL per MR round', bits: 2048, what: 'modexp 2048 bits, OpenSSL per MR round', value: 1.5, unit: 'ms' }),
      row({ chart: 'safe-prime', series: 'native 2 threads', bits: 1024, what: 'safe prime 1024 bits, native 2 threads', value: 0.06, unit: 's' }),
      row({ chart: 'safe-prime', series: 'node:crypto (1 core)', bits: 1024, what: 'safe prime 1024 bits, node:crypto', value: 1.4, unit: 's' }),
      row({ chart: 'safe-prime', series: 'openssl dhparam', bits: 1024, what: 'dhparam 1024 bits, openssl dhparam', value: 2.1, unit: 's' }),
      row({ chart: 'safe-prime', series: 'native 2 threads', bits: 512, what: 'safe prime 512 bits, native 2 threads', value: 0.01, unit: 's' }),
    ],
    targets: [
      { what: 'native 1 thread / openssl block rate', value: 2 * scale, unit: '×', goal: 1.5, direction: 'min', met: 2 * scale >= 1.5 },
      { what: '2048-bit base-2 Fermat, native / OpenSSL per round, a long name that must not be cut off', value: 0.7, unit: '×', goal: 0.85, direction: 'max', met: true },
      { what: '1024-bit safe prime on 2 threads', value: 0.06, unit: 's', goal: 0.1, direction: 'max', met: true },
      { what: 'not measurable here', value: null, unit: 's', goal: 2, direction: 'max', met: null },
    ],
    skipped: ['something: not installed'],
  };
}

describe('bench report', () => {
  it('is one self-contained HTML page with SVG charts, the machine and every target', async () => {
    const html = await htmlReport(sample());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link/i);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect((html.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(5);
    expect(html).toContain('Proof of work per nonce length');
    expect(html).toContain('Test CPU 9000');
    expect(html).toContain('shaNi, avx2, adx');
    for (const t of sample().targets) expect(html).toContain(t.what);
  });

  it('compares with a saved run: each row its change, and a note when the machines differ', () => {
    const now = sample({}, 1.124);
    const same = compareRuns(now, sample());
    expect(same.changes.get('native 1 thread (sha-ni x2)')).toBeCloseTo(0.124, 6);
    expect(same.changes.get('modexp 2048 bits, native')).toBe(0);
    expect(same.machineNote).toBeNull();
    const text = formatReport(now, same);
    expect(text).toMatch(/native 1 thread \(sha-ni x2\) .*\+12\.4%/);
    const other = compareRuns(now, sample({ cpu: 'Other CPU', features: ['avx2'] }));
    expect(other.machineNote).toMatch(/machines differ \(CPU Other CPU → Test CPU 9000; features \+shaNi \+adx\)/);
    expect(formatReport(now, other)).toContain('NOTE: the machines differ');
  });

  it('charts: one colour per implementation on the whole page, small bars visible, values labelled, captions, labels whole', async () => {
    const html = await htmlReport(sample());
    const svgs = html.match(/<svg[\s\S]*?<\/svg>/g)!;
    const bars = (svg: string, colour: string): number[] =>
      [...svg.matchAll(/<path[^>]*?d="M[-\d.]+,[-\d.]+h([\d.]+)v[\d.]+h-[\d.]+Z"[^>]*?fill="([^"]+)"/g)].filter((m) => m[2] === colour).map((m) => Number(m[1]));
    const chart = (title: string): string => svgs.find((svg) => svg.includes(title))!;
    const [pow, modexp, primes] = [chart('Proof of work: million'), chart('Modular exponentiation'), chart('Safe primes and DH')];
    const colour = (series: string): string => implementationOf(series).colour;
    // The same implementation, the same colour, in every chart it appears in.
    expect(bars(pow!, colour('openssl (1 core)')).length).toBe(1);
    expect(bars(modexp!, colour('OpenSSL per MR round')).length).toBe(1);
    expect(bars(primes!, colour('openssl dhparam')).length).toBe(1);
    expect(bars(pow!, colour('node:crypto')).length).toBe(1);
    expect(bars(primes!, colour('node:crypto (1 core)')).length).toBe(1);
    expect(bars(primes!, colour('native 2 threads')).length).toBe(2);
    expect(new Set([colour('native 1 thread'), colour('native'), colour('powprime dhparam')]).size).toBe(1);
    expect(new Set(['native', 'ts 1 thread', 'openssl dhparam', 'node:crypto', 'bigint-crypto-utils'].map(colour)).size).toBe(5);
    // 0.69 M/s beside 130 M/s: on a log axis its bar is still tens of pixels long, and labelled.
    expect(bars(pow!, colour('node:crypto'))[0]).toBeGreaterThan(40);
    expect(pow).toContain('690.0 k/s');
    expect(pow).toContain('log scale');
    expect(modexp).toContain('1.100 ms');
    // Labels whole: vega marks a cut label with an ellipsis.
    for (const svg of svgs) expect(svg).not.toContain('…');
    expect(html).toContain('a long name that must not be cut off');
    // A caption under every chart; the machine said once, in the table.
    expect((html.match(/<p class="caption">/g) ?? []).length).toBe(svgs.length);
    expect(html).not.toContain('Machine: ');
    expect(html.split('Test CPU 9000').length - 1).toBe(2); // the <title> and the table
  });

  it('a goal missed on a busy machine is "not judged", not "NOT met"; on a quiet one it is NOT met', () => {
    const quick = sample();
    const missed = [...quick.targets, { what: '2 threads / 1 thread', value: 0.76, unit: '×', goal: 1.8, direction: 'min' as const, met: false }];
    const spreadRow = row({ chart: 'modexp', series: 'native', bits: 4096, what: 'modexp 4096 bits, native', value: 10, unit: 'ms', min: 9, max: 30 });
    const busy = judgeNoise([...quick.rows, spreadRow], 3.5, 2);
    expect(busy.busy).toBe(true);
    expect(busy.reasons.join('; ')).toMatch(/others' load 3\.50 on 2 cores.*"modexp 4096 bits, native" differed by 210%/);
    const busyText = formatReport({ ...quick, targets: withVerdicts(missed, busy), noise: busy });
    expect(busyText).not.toContain('NOT met');
    expect(busyText).toMatch(/2 threads \/ 1 thread: 0\.760 × \(goal ≥ 1\.8 ×\) not judged/);
    expect(busyText).toMatch(/^Verdict: 3 of 4 goals met, 1 not judged\.$/m);
    expect(busyText).toMatch(/The machine was busy: others' load 3\.50.*mostly measure the other work; the goals it missed are not judged\. Run again when the machine is quiet\./);
    // Busy, but every goal met: the sentence still reads whole.
    expect(formatReport({ ...quick, targets: withVerdicts(quick.targets, busy), noise: busy })).toMatch(/mostly measure the other work\. Run again when the machine is quiet\./);
    expect(busyText).toMatch(/--quick measures small sizes.*`powprime bench` \(about a quarter of an hour/);
    // A quick moduli run points to the moduli suite's full run: a plain `powprime bench` runs no moduli.
    const moduliRow = { ...row({ chart: 'moduli', series: 'powprime core s', bits: 2048, what: 'moduli 2048 bits, powprime core s', value: 2, unit: 's' }), suite: 'moduli' as const };
    const moduliText = formatReport({ ...quick, rows: [moduliRow], targets: [], noise: busy });
    expect(moduliText).toMatch(/--quick measures 2048 bits alone; `powprime bench --suite moduli` \(an hour or more/);
    expect(moduliText).not.toMatch(/--quick measures small sizes/);
    // A count of work (Fermat tests a prime) is the same however busy the machine: missed is NOT met there too.
    const counted = target('4096-bit Fermat tests a prime / expectation', 0.73, '×', 0.6, 'max', { counted: true });
    expect(withVerdicts([counted], busy)[0]).toMatchObject({ verdict: 'not met' });
    expect(formatReport({ ...quick, targets: withVerdicts([...missed, counted], busy), noise: busy })).toMatch(
      /^Verdict: 3 of 5 goals met, 1 not met \(4096-bit Fermat tests a prime \/ expectation\), 1 not judged\.$/m,
    );
    const calm = judgeNoise(quick.rows, 0.2, 2);
    expect(calm).toMatchObject({ busy: false, reasons: [] });
    // Quiet before the run, but others took a core during it.
    const during = judgeNoise(quick.rows, 0.2, 2, undefined, 0.96);
    expect(during).toMatchObject({ busy: true, othersDuring: 0.96, reasons: ['others used 0.96 of 2 cores on average during the run'] });
    expect(withVerdicts(missed, during).at(-1)).toMatchObject({ verdict: 'not judged' });
    expect(judgeNoise(quick.rows, 0.2, 2, undefined, 0.1)).toMatchObject({ busy: false, othersDuring: 0.1 });
    // Runs that do different work by design (openssl dhparam starts at random), and sub-millisecond ones, are not noise.
    const varied = [
      row({ chart: 'safe-prime', series: 'openssl dhparam', bits: 2048, what: 'dhparam 2048 bits, openssl dhparam', value: 20, unit: 's', min: 3, max: 60 }),
      row({ chart: 'modexp', series: 'native', bits: 1024, what: 'modexp 1024 bits, native', value: 0.26, unit: 'ms', min: 0.25, max: 0.9 }),
      // Code V8 compiles as it runs varies with its tiering and collections, not with others' work.
      row({ chart: 'pow-rate', series: 'ts 1 thread', what: 'ts 1 thread', value: 10e6, unit: 'hashes/s', min: 7e6, max: 12e6 }),
      row({ chart: 'modexp', series: 'wasm', bits: 2048, what: 'modexp 2048 bits, wasm', value: 4, unit: 'ms', min: 3, max: 6 }),
      row({ chart: 'modexp', series: 'TS BigInt base-2', bits: 1024, what: 'modexp 1024 bits, TS BigInt base-2', value: 2, unit: 'ms', min: 1.5, max: 3.7 }),
    ];
    expect(judgeNoise([...quick.rows, ...varied], 0.2, 2).busy).toBe(false);
    // The same spread on the addon's or OpenSSL's rows is the machine's.
    for (const series of ['native 1 thread', 'openssl (1 core)']) {
      const steady = row({ chart: 'pow-rate', series, what: series, value: 10e6, unit: 'hashes/s', min: 7e6, max: 12e6 });
      expect(judgeNoise([...quick.rows, steady], 0.2, 2).reasons, series).toEqual([`repeated runs of "${series}" differed by 50%`]);
    }
    const calmText = formatReport({ ...quick, targets: withVerdicts(missed, calm), noise: calm });
    expect(calmText).toMatch(/2 threads \/ 1 thread: .* NOT met/);
    expect(calmText).toMatch(/^Verdict: 3 of 4 goals met, 1 not met \(2 threads \/ 1 thread\)\.$/m);
    expect(formatReport({ ...quick, noise: calm })).toMatch(/^Verdict: all 3 goals measured here were met\.$/m);
    // A comparison with a run made on a busy machine says so.
    expect(compareRuns({ ...quick, noise: calm }, { ...quick, noise: busy }).machineNote).toMatch(/the old run ran on a busy machine/);
  });

  it('the core probe is reported beside the verdict, naming CPUs far apart alone or slower together, and never changes it', () => {
    const quick = sample();
    const even = { cpus: [0, 2], alone: [135e6, 134e6], together: [131e6, 130e6] };
    const uneven = judgeNoise(quick.rows, 0.2, 2, { before: even, after: { cpus: [0, 2], alone: [135.2e6, 90e6], together: [130e6, 88e6] } });
    // Cores apart can be the hardware's design (hybrid cores, SMT siblings): a fact, not noise.
    expect(uneven).toMatchObject({ busy: false, reasons: [] });
    const text = formatReport({ ...quick, noise: uneven });
    expect(text).toContain('The PoW kernel on CPUs 0, 2, M hashes/s: before the run 135.0 / 134.0 alone, 131.0 / 130.0 all at once; after, 135.2 / 90.0 alone, 130.0 / 88.0 all at once.');
    expect(text).toContain('After the run, CPU 2 ran the PoW kernel alone 33% slower than CPU 0 (90.0 against 135.2 M hashes/s)');
    expect(text).not.toContain('Before the run, CPU');
    expect(text).toMatch(/^Verdict: all 3 goals measured here were met\.$/m);
    // Alike alone, but one loses a quarter beside the other: more threads cannot scale fully here.
    const shared = judgeNoise(quick.rows, 0.2, 2, { before: { cpus: [0, 1], alone: [135e6, 134e6], together: [132e6, 100e6] }, after: null });
    const sharedText = formatReport({ ...quick, noise: shared });
    expect(sharedText).toContain('Before the run, with every probed core running the PoW kernel at once, CPU 1 ran 25% slower than alone (100.0 against 134.0 M hashes/s)');
    expect(sharedText).toContain('; after, not measured.');
  });

  it.skipIf(!hasNative || !hasCommand('taskset', ['--version']) || availableParallelism() < 2)('the per-core probe measures every core, alone and all at once', async () => {
    const probe = await probeCores();
    const n = Math.min(8, availableParallelism());
    expect([probe?.cpus.length, probe?.alone.length, probe?.together.length]).toEqual([n, n, n]);
    // One thread of the native kernel: well above the TS kernel's few M hashes/s on any core with it.
    for (const r of [...probe!.alone, ...probe!.together]) expect(r).toBeGreaterThan(5e6);
  });

  it.skipIf(!hasNative)('a probe child loads, says ready, and times nothing until it is told to go (so children can start together)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/cores.ts', '--probe'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    await vi.waitFor(() => expect(out).toBe('ready\n'), { timeout: 30_000, interval: 50 });
    await new Promise((r) => setTimeout(r, 1500)); // a whole timing's worth: nothing more may come
    expect(out).toBe('ready\n');
    child.stdin.end('go\n');
    expect(await closed).toBe(0);
    expect(Number(out.replace(/^ready\n/, ''))).toBeGreaterThan(5e6);
  });
  it('looks right in a real headless browser', async (ctx) => {
    const browser = ['chromium', 'chromium-browser', 'google-chrome'].find((b) => !spawnSync(b, ['--version']).error);
    if (!browser) {
      process.stderr.write('bench report screenshot: no chromium here; skipped\n');
      ctx.skip();
      return;
    }
    const dir = tempDir();
    const page = join(dir, 'report.html');
    const shot = join(dir, 'report.png');
    writeFileSync(page, await htmlReport(sample()));
    const r = spawnSync(browser, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--window-size=1100,1800', `--screenshot=${shot}`, `file://${page}`], {
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(existsSync(shot)).toBe(true);
    // A blank page is a few kilobytes; charts and tables make it far larger.
    expect(statSync(shot).size).toBeGreaterThan(50_000);
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
  });
});

describe.runIf(existsSync('/proc/stat'))("others' load before a run", () => {
  it('counts the runnable tasks of other processes while they run, not this process', async () => {
    // Two processes that spin: at least about two runnable tasks besides this one, whatever else runs.
    const spinners = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(await loadNow(1000)).toBeGreaterThanOrEqual(1.5);
    } finally {
      for (const s of spinners) s.kill('SIGKILL');
    }
  });
});

describe.runIf(existsSync('/proc/stat') && existsSync('/proc/self/stat'))("others' work during a run", () => {
  // Spins until this process has used `ms` of CPU: counted in CPU time, not wall time, which a busy machine stretches.
  const spinFor = (ms: number): void => {
    const from = process.cpuUsage();
    while (process.cpuUsage(from).user < ms * 1000);
  };
  // CPU ticks of a process from /proc/PID/stat (utime + stime).
  const ticksOf = (pid: number): number => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f
      .slice(f.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return rest[11]! + rest[12]!;
  };
  it("counts this process's CPU and its waited-for children's as its own, and another process's as others'", async () => {
    // This process and a child it waits for spin 0.6 s of CPU each: 1.2 s of its own (120 ticks), less a tick or two of rounding.
    let from = cpuMark()!;
    spinFor(600);
    spawnSync(process.execPath, ['-e', 'const c = process.cpuUsage(); while (process.cpuUsage(c).user < 600000);']);
    let to = cpuMark()!;
    expect(to.own - from.own).toBeGreaterThanOrEqual(110);
    // A process this one does not wait for spins beside it: its CPU time is in others' (with whatever else runs).
    const spinner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 200));
      from = cpuMark()!;
      const spun = ticksOf(spinner.pid!);
      await new Promise((r) => setTimeout(r, 1200));
      to = cpuMark()!;
      const spinnerTicks = ticksOf(spinner.pid!) - spun;
      expect(spinnerTicks).toBeGreaterThan(30);
      const othersTicks = othersDuring(from, to)! * ((to.atMs - from.atMs) / 1000) * 100;
      expect(othersTicks).toBeGreaterThanOrEqual(spinnerTicks - 3);
    } finally {
      spinner.kill('SIGKILL');
    }
  });
});

describe('powprime bench --quick --suite pow (a real, short run)', () => {
  // Two quick runs, each over every nonce length mod 64: minutes on a busy machine.
  it('--json, --save, --report and --compare: one schema, numeric goals, boolean verdicts, units', { timeout: 300_000 }, async () => {
    const dir = tempDir();
    const saved = join(dir, 'run.json');
    const report = join(dir, 'run.html');
    const r = await runCli('bench', '--quick', '--suite', 'pow', '--json', '--save', saved, '--report', report);
    expect(r.status, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout) as BenchResult;
    expect(JSON.parse(readFileSync(saved, 'utf8'))).toEqual(res);
    expect(res.schema).toBe(SCHEMA_VERSION);
    expect(res.machine).toMatchObject({ cores: expect.any(Number), node: process.version, powprime: expect.any(String) });
    expect(res.rows.length).toBeGreaterThanOrEqual(5);
    for (const x of res.rows) {
      expect(x).toMatchObject({ suite: 'pow', chart: expect.stringMatching(/^pow-(rate|layout)$/), unit: 'hashes/s', what: expect.any(String) });
      if (x.value !== null) expect(x.min! <= x.median! && x.median! <= x.max!).toBe(true);
    }
    // The one-thread layout rows cover every nonce length mod 64; a quick run's thread ratio, one length a changing word.
    const layouts = res.rows.filter((x) => x.chart === 'pow-layout');
    for (const series of new Set(layouts.map((x) => x.series))) {
      const mods = new Set(layouts.filter((x) => x.series === series).map((x) => x.nonceLength! % 64));
      const words = new Set(layouts.filter((x) => x.series === series).map((x) => /word (\d+) changes/.exec(x.what)![1]));
      if (series === 'native 1 thread' || series === 'ts 1 thread' || series === 'wasm 1 thread') expect(mods.size, series).toBe(64);
      else expect([mods.size, words.size], series).toEqual([12, 12]);
    }
    expect(layouts.some((x) => x.series === 'ts 1 thread')).toBe(true);
    expect(layouts.some((x) => x.series === 'wasm 1 thread')).toBe(true);
    expect(res.targets.length).toBe(7);
    // The server side: verifications against node:crypto's HMAC, both rates named.
    expect(res.targets.find((t) => t.what.startsWith('verifySolutionSync / node:crypto createHmac'))).toMatchObject({
      goal: 0.5,
      unit: '×',
      value: expect.any(Number),
      detail: expect.stringMatching(/^verifySolutionSync [\d,]+\/s .*node:crypto HMAC-SHA-256 of 43 bytes [\d,]+\/s/),
    });
    expect(res.targets.filter((t) => /over nonce lengths/.test(t.what)).length).toBe(5);
    // The WebAssembly kernel's goal is judged per length against the TS kernel: its value is the lowest of those ratios.
    const wasmRows = new Map(layouts.filter((x) => x.series === 'wasm 1 thread').map((x) => [x.nonceLength, x.value!]));
    const tsRows = layouts.filter((x) => x.series === 'ts 1 thread');
    const wasmGoal = res.targets.find((t) => t.what.startsWith('wasm / ts per thread'))!;
    expect(wasmGoal).toMatchObject({ goal: 1.5, unit: '×' });
    expect(wasmGoal.value).toBeCloseTo(Math.min(...tsRows.map((x) => wasmRows.get(x.nonceLength)! / x.value!)), 9);
    // The headline: one rate, and the thread ratio beside the machine's own scaling when openssl speed -multi runs here.
    expect(res.pow).toMatchObject({ kernel: expect.any(String), lengths: 64, threads: expect.any(Number), rate: expect.any(Number) });
    const scaling = res.targets.find((t) => /native \d+ threads \/ native 1 thread/.test(t.what))!;
    if (res.pow!.kernel !== 'ts' && res.pow!.threads >= 2) {
      expect(res.pow!.threadRatio).toMatchObject({ measured: 12 });
      if (res.pow!.machineScaling) {
        expect(scaling).toMatchObject({ goal: 0.97, detail: expect.stringMatching(/^ours .*; the machine's .* \(openssl speed -multi \d+ \/ 1 process/) });
        expect(scaling.value).toBeCloseTo(res.pow!.threadRatio!.min / res.pow!.machineScaling.ratio, 9);
        expect(res.rows.filter((x) => /openssl sha256 blocks\/s, .*wall time/.test(x.what))).toHaveLength(2);
      } else expect(scaling).toMatchObject({ goal: 1.9 });
    }
    for (const t of res.targets) {
      expect(typeof t.goal).toBe('number');
      expect(['min', 'max']).toContain(t.direction);
      expect(typeof t.unit).toBe('string');
      if (t.value !== null) expect(t.met).toBe(t.direction === 'min' ? t.value >= t.goal : t.value <= t.goal);
    }
    expect(res.noise).toMatchObject({ cores: res.machine.cores, busy: expect.any(Boolean), loadBefore: expect.any(Number) });
    for (const t of res.targets) expect(['met', 'not met', 'not judged', 'not measured']).toContain(t.verdict);
    const html = readFileSync(report, 'utf8');
    expect((html.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(2);
    expect(html).toContain(res.machine.cpu);

    const again = await runCli('bench', '--quick', '--suite', 'pow', '--compare', saved);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Compared with the run of /);
    expect(again.stdout).toMatch(/\|\s+[+−]\d+\.\d%/);
    expect(again.stdout).toMatch(/^PoW rate: [\d.]+ M hashes\/s on one thread/m);
    expect(again.stdout).toMatch(/^Verdict: /m);
    // The per-length table only with --verbose.
    expect(again.stdout).not.toContain('| nonce length |');
  });

  it('a --compare file that is not a saved result is refused before measuring (exit 2)', async () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"hello": 1}');
    const r = await runCli('bench', '--quick', '--compare', bad);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is not a result saved by powprime bench --save/);
    const damaged = { schema: SCHEMA_VERSION, rows: [{ what: 'x', value: 1 }], targets: [], machine: { cpu: 'c', cores: 2, date: 'd' } };
    writeFileSync(bad, JSON.stringify(damaged));
    const r2 = await runCli('bench', '--quick', '--compare', bad);
    expect(r2.status).toBe(2);
    expect(r2.stderr).toMatch(/machine or rows damaged/);
    writeFileSync(bad, JSON.stringify({ ...damaged, machine: { ...damaged.machine, features: [] }, rows: [{ what: 'x' }] }));
    expect((await runCli('bench', '--quick', '--compare', bad)).stderr).toMatch(/machine or rows damaged/);
    writeFileSync(bad, 'not json');
    expect((await runCli('bench', '--quick', '--compare', bad)).status).toBe(2);
    const missing = join(dir, 'missing.json');
    expect(await runCli('bench', '--quick', '--compare', missing)).toMatchObject({ status: 2, stderr: `powprime: --compare ${missing}: no such file\n` });
  });

  it('--moduli-bits: only with --suite moduli and not --quick, sizes in range, refused before measuring (exit 2)', async () => {
    const cases: [string[], RegExp][] = [
      [['--moduli-bits', '8192'], /--moduli-bits goes with --suite moduli, without --quick/],
      [['--suite', 'moduli', '--quick', '--moduli-bits', '8192'], /--moduli-bits goes with --suite moduli, without --quick/],
      [['--suite', 'moduli', '--moduli-bits', '1024'], /--moduli-bits must be an integer from 2048 to 8192 \(got 1024\)/],
      [['--suite', 'moduli', '--moduli-bits', '8192,8192'], /--moduli-bits names 8192 twice/],
      // Repeated, the lists add up, as moduli --bits's do (commander would keep the last alone).
      [['--suite', 'moduli', '--moduli-bits', '8192', '--moduli-bits', '2048,8192'], /--moduli-bits names 8192 twice/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli('bench', '--progress', 'json', ...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^powprime: ${message.source}\n$`));
    }
  });

  it('a --save or --report place that cannot take the file is refused before measuring (exit 2), and no folder is made', async () => {
    const dir = tempDir();
    const asDir = await runCli('bench', '--quick', '--progress', 'json', '--save', dir);
    expect(asDir.status).toBe(2);
    // One line and no progress event: refused before the first step of the run.
    expect(asDir.stderr).toMatch(/^powprime: --save .* is a directory; give a file name\n$/);
    const missing = join(dir, 'no-such-folder', 'r.html');
    const noFolder = await runCli('bench', '--quick', '--report', missing);
    expect(noFolder.status).toBe(2);
    expect(noFolder.stderr).toMatch(/--report .*its folder .* does not exist/);
    expect(existsSync(join(dir, 'no-such-folder'))).toBe(false);
  });
});
