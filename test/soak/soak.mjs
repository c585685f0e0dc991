// Endurance check (`npm run test:soak`, about five minutes on two cores):
// the long-running workloads, each in a real process started from dist/ —
// CLI searches at 512 and 2048 bits, a worker behind a queue search on a
// redis-server of its own, the library's isSafePrime, solvePow + closePool
// cycles and search, and `question run` against the fake services. The
// process doing the work is sampled ten times a second (VmRSS and open fds from
// /proc); after a warm-up its memory and fds must stay flat (the bounds are
// below). One PASS/FAIL line per case; exit 1 when any case fails.
//
// `--only NAME` (repeatable) runs the cases whose name contains NAME;
// `--scale X` runs the timed cases X times as long (an hours-long soak);
// `--verbose` prints every case's RSS every 5 s (a failed case always does).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const CLI = path.join(root, 'dist/src/cli/main.js');
const LIBRARY = path.join(here, 'library.mjs');

// The bounds, stated in docs/operations.md ("Endurance"). Samples from the
// first 40% of a case are warm-up (pool threads start, tables are built,
// the JS heaps of the main and pool threads find their size: a healthy
// worker takes about 40 s to level off). After it, the median RSS of the last quarter
// of the samples may exceed the median of the first quarter by 32 MB at
// most: a healthy run moves a few MB either way, while a leak of a megabyte
// per prime (512-bit searches find tens a second) crosses it within
// seconds. Open fds may grow by 4 at most (a reconnect, a keep-alive socket).
const WARMUP_FRACTION = 0.4;
const RSS_BOUND_MB = 32;
const FD_BOUND = 4;
// Ten times a second: on a fast machine the counted workloads (20,000 checks,
// 600 prompts) end within seconds and must still give enough samples.
const SAMPLE_MS = 100;

const option = (name) => process.argv.flatMap((a, i, all) => (all[i - 1] === name ? [a] : []));
const only = option('--only');
const scale = Number(option('--scale').pop() ?? 1);
const verbose = process.argv.includes('--verbose');
if (!(scale > 0)) {
  console.error('soak: --scale must be a positive number');
  process.exit(2);
}

const children = new Set();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A node (or other) child process of this run, killed at exit if still running. */
function start(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

const startNode = (args, opts) => start(process.execPath, args, opts);

/** SIGINT (a clean stop), then SIGKILL if it has not exited within 30 s. */
async function stop(p) {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return p.exited;
  p.child.kill('SIGINT');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 30_000);
  const r = await p.exited;
  clearTimeout(timer);
  return r;
}

function readSample(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  // A process on its way out has no VmRSS line: it counts as gone.
  if (rss === undefined) throw new Error('exiting');
  return { rssKb: Number(rss), fds: readdirSync(`/proc/${pid}/fd`).length };
}

/** Samples `pid` every SAMPLE_MS until stopped or gone. */
function sampler(pid) {
  const t0 = performance.now();
  const samples = [];
  const take = () => {
    try {
      samples.push({ t: performance.now() - t0, ...readSample(pid) });
    } catch {
      clearInterval(timer); // the process has ended
    }
  };
  const timer = setInterval(take, SAMPLE_MS);
  take();
  return {
    finish() {
      clearInterval(timer);
      return { samples, elapsedMs: performance.now() - t0 };
    },
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mb = (kb) => (kb / 1024).toFixed(1);

/** The verdict on one sampled process: a result line, PASS or FAIL. */
function judge(name, { samples, elapsedMs }, what, problem = null, warmup = WARMUP_FRACTION) {
  const post = samples.filter((s) => s.t >= warmup * elapsedMs);
  const secs = (elapsedMs / 1000).toFixed(0);
  if (problem) return { ok: false, line: `FAIL ${name}: ${problem} (${secs} s)` };
  if (post.length < 8) return { ok: false, line: `FAIL ${name}: only ${post.length} samples after warm-up; the process ended after ${secs} s` };
  const q = Math.floor(post.length / 4);
  const head = post.slice(0, q);
  const tail = post.slice(-q);
  const rss0 = median(head.map((s) => s.rssKb));
  const rss1 = median(tail.map((s) => s.rssKb));
  const fd0 = Math.max(...head.map((s) => s.fds));
  const fd1 = Math.max(...tail.map((s) => s.fds));
  const peak = Math.max(...samples.map((s) => s.rssKb));
  const growthMb = (rss1 - rss0) / 1024;
  const ok = growthMb <= RSS_BOUND_MB && fd1 - fd0 <= FD_BOUND;
  const sign = growthMb >= 0 ? '+' : '';
  let line =
    `${ok ? 'PASS' : 'FAIL'} ${name}: RSS ${mb(rss0)} -> ${mb(rss1)} MB (${sign}${growthMb.toFixed(1)} MB, bound +${RSS_BOUND_MB}), ` +
    `peak ${mb(peak)} MB; fds ${fd0} -> ${fd1} (bound +${FD_BOUND}); ${secs} s, first ${Math.round(warmup * 100)}% warm-up; ${what}`;
  if (!ok || verbose) {
    const every = samples.filter((x, i) => i === 0 || Math.floor(x.t / 5000) > Math.floor(samples[i - 1].t / 5000));
    line += `\n    RSS MB every 5 s: ${every.map((x) => (x.rssKb / 1024).toFixed(0)).join(' ')}`;
  }
  return { ok, line };
}

const lines = (file) => {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

/** An exit a stopped or finished run may end with: done, or interrupted as asked. */
function badExit(r, p, allowed) {
  if (allowed.includes(r.code)) return null;
  const last = p.stderr().trim().split('\n').pop() ?? '';
  return `exited ${r.code ?? r.signal}${last ? `: ${last}` : ''}`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// test/helpers/redis.ts has the same wait, but this script runs on plain Node
// (no TypeScript loader), so it cannot import it.
async function redisUp(port) {
  for (const until = Date.now() + 10_000; Date.now() < until; await sleep(50)) {
    const ok = await new Promise((resolve) => {
      const c = createConnection(port, '127.0.0.1');
      c.on('error', () => resolve(false));
      c.on('connect', () => c.write('PING\r\n'));
      c.on('data', (d) => {
        c.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
    });
    if (ok) return;
  }
  throw new Error(`redis-server on port ${port} did not answer`);
}

// ---- cases ------------------------------------------------------------------

/** `search --out` for `seconds`, stopped with Ctrl-C. */
function cliSearch(bits, seconds) {
  return cliAppend(`search --bits ${bits} --out`, `search-${bits}.jsonl`, ['search', '--bits', String(bits)], 'primes', seconds);
}

/** `moduli --out` (the OpenSSH moduli file) for `seconds`, stopped with Ctrl-C. */
function cliModuli(bits, seconds) {
  return cliAppend(`moduli --bits ${bits} --out`, `moduli-${bits}`, ['moduli', '--bits', String(bits)], 'lines', seconds);
}

/** A command that appends to --out for `seconds` (a count it never reaches), stopped with Ctrl-C. */
function cliAppend(label, file, args, what, seconds) {
  return async (dir) => {
    const out = path.join(dir, file);
    const p = startNode([CLI, ...args, '--count', '1000000', '--seed', '1', '--out', out]);
    const s = sampler(p.child.pid);
    await Promise.race([sleep(seconds * scale * 1000), p.exited]);
    const run = s.finish();
    let problem = badExit(await stop(p), p, [0, 130]);
    if (!problem && lines(out) === 0) problem = `no ${what} written`;
    return [judge(label, run, `${lines(out)} ${what} written`, problem)];
  };
}

/** A worker (2 threads) behind a 512-bit queue search, both sampled, on a redis-server of this run's own. */
async function workerCase(dir) {
  const port = await freePort();
  const redis = start('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  try {
    await redisUp(port);
    const url = `redis://127.0.0.1:${port}`;
    const out = path.join(dir, 'queue.jsonl');
    const coordinator = startNode([CLI, 'search', '--bits', '512', '--count', '1000000', '--seed', '2', '--queue', url, '--queue-name', 'soak', '--out', out]);
    const worker = startNode([CLI, 'worker', '--queue', url, '--queue-name', 'soak', '--threads', '2']);
    const sw = sampler(worker.child.pid);
    const sc = sampler(coordinator.child.pid);
    await Promise.race([sleep(70_000 * scale), worker.exited, coordinator.exited]);
    const runW = sw.finish();
    const runC = sc.finish();
    const wExit = badExit(await stop(worker), worker, [0, 130]) ?? (lines(out) === 0 ? 'no prime written' : null);
    const cExit = badExit(await stop(coordinator), coordinator, [0, 130]);
    const what = `${lines(out)} primes written`;
    return [judge('worker --threads 2 (behind search --queue)', runW, what, wExit), judge('search --bits 512 --queue (coordinator)', runC, what, cExit)];
  } finally {
    redis.child.kill('SIGKILL');
    await redis.exited;
  }
}

/** One workload of library.mjs, run to its end. */
function libraryCase(name, warmup, workload) {
  return async () => {
    const p = startNode([LIBRARY, workload, ...(workload === 'search-safe-primes' ? [String(20 * scale)] : [])]);
    const s = sampler(p.child.pid);
    const r = await p.exited;
    const run = s.finish();
    const problem = badExit(r, p, [0]);
    return [judge(name, run, p.stdout().trim(), problem, warmup)];
  };
}

/** `question run` over 600 prompts against the fake services (no limits; answers after 20 s, so that after posting the run spends a steady while collecting). */
const PROMPTS = 600;

async function questionCase(dir) {
  const fake = startNode([CLI, 'fake-services', '--json', '--no-limits', '--answer-delay', '20s']);
  try {
    let url = null;
    for (const until = Date.now() + 20_000; !url && Date.now() < until; await sleep(100)) {
      const first = fake.stdout().split('\n')[0];
      if (first.endsWith('}')) url = JSON.parse(first).question;
    }
    if (!url) throw new Error(`fake-services did not start: ${fake.stderr().trim()}`);
    const prompts = path.join(dir, 'prompts.txt');
    writeFileSync(prompts, Array.from({ length: PROMPTS }, (_, i) => `soak prompt ${i + 1}\n`).join(''));
    const out = path.join(dir, 'answers.jsonl');
    const args = ['question', 'run', '--prompts', prompts, '--out', out, '--files-dir', path.join(dir, 'files'), '--state-dir', path.join(dir, 'question-state')];
    const p = startNode([CLI, ...args, '--no-limits', '--first-check', '1', '--max-interval', '2', '--base-url', url]);
    const s = sampler(p.child.pid);
    const r = await p.exited;
    const run = s.finish();
    let problem = badExit(r, p, [0]);
    if (!problem && lines(out) !== PROMPTS) problem = `${lines(out)} answers written for ${PROMPTS} prompts`;
    return [judge('question run (fake services)', run, `${lines(out)} answers`, problem)];
  } finally {
    await stop(fake);
  }
}

const cases = [
  ['search-512', cliSearch(512, 30)],
  ['search-2048', cliSearch(2048, 75)],
  ['moduli-2048', cliModuli(2048, 45)],
  ['worker', workerCase],
  ['is-safe-prime', libraryCase('isSafePrime x 20,000 (library)', WARMUP_FRACTION, 'is-safe-prime')],
  ['solve-pow', libraryCase('solvePow x 2,000 on one pool (library)', WARMUP_FRACTION, 'solve-pow')],
  // A pool created and closed 800 times: each closed pool must leave
  // nothing behind (piscina's timing histograms once did, 0.2 MB a pool).
  // Warm-up over half the run: the first pools fill malloc's arenas.
  ['close-pool', libraryCase('solvePow + closePool x 800 (library)', 0.5, 'solve-pow-close-pool')],
  ['search-safe-primes', libraryCase(`searchSafePrimes 512 bits, ${20 * scale} s (library)`, WARMUP_FRACTION, 'search-safe-primes')],
  ['question-run', questionCase],
];

// ---- run --------------------------------------------------------------------

const killAll = () => {
  for (const c of children) c.kill('SIGKILL');
};
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killAll();
    process.exit(128 + os.constants.signals[sig]);
  });
}

if (spawnSync(process.execPath, [CLI, '--version']).status !== 0) {
  console.error('soak: dist/ is missing or broken; build it first (npm run build)');
  process.exit(2);
}
if (spawnSync('redis-server', ['--version']).error) {
  console.error('soak: redis-server is not installed (the worker case needs it)');
  process.exit(2);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'powprime-soak-'));
let failed = 0;
try {
  for (const [name, run] of cases) {
    if (only.length && !only.some((o) => name.includes(o))) continue;
    let results;
    try {
      results = await run(dir);
    } catch (err) {
      results = [{ ok: false, line: `FAIL ${name}: ${err.message}` }];
    }
    for (const r of results) {
      if (!r.ok) failed++;
      console.log(r.line);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(failed ? `soak: ${failed} case(s) FAILED` : 'soak: all cases passed');
process.exit(failed ? 1 : 0);
