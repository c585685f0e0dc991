// Queue mode against a real redis-server (started by test/helpers/redis-setup.ts):
// coordinators and workers are real CLI processes, killed with -9 where the test says so,
// and every run must give the lines a local run gives.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateModuli, searchSafePrimes } from '../src/index.ts';
import { startFakeServices, type FakeServices } from '../src/fake-services/index.ts';
import { hostStateFile, hostTag } from '../src/clients/http/state-paths.ts';
import { chunkId } from '../src/queue/chunk-plan.ts';
import { ignoreQueueErrors, noticeWorkerErrors } from '../src/queue/connection.ts';
import { runCli } from './helpers/cli.ts';
import { jsonConventionErrors, jsonValues } from './helpers/json-convention.ts';
import { killAll, startCli, type Running } from './helpers/processes.ts';
import { timeless } from './helpers/moduli.ts';
import { freePort, startRedis } from './helpers/redis.ts';
import { tempDir } from './helpers/tmp.ts';

const redisUrl = inject('redisUrl');
if (!redisUrl) {
  if (process.env.POWPRIME_REQUIRE_REDIS === '1') throw new Error('redis-server is required here (POWPRIME_REQUIRE_REDIS=1) but is not installed');
  process.stderr.write('\n*** queue tests SKIPPED: redis-server is not installed (apt-get install -y redis-server) ***\n\n');
}

type Key = [string, number, string, number];

/** The part of a line that must not depend on what computed it. */
function keys(jsonl: string): Key[] {
  return jsonl
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const o = JSON.parse(l) as { prime: string; bits: number; seed: string; index: number };
      return [o.prime, o.bits, o.seed, o.index];
    });
}

async function local(bits: number, seed: bigint, count: number): Promise<Key[]> {
  const out: Key[] = [];
  for await (const r of searchSafePrimes({ bits, seed, count })) out.push([r.prime.toString(), bits, seed.toString(), Number(r.index)]);
  return out;
}

/** Job ids a worker printed with --json, one per chunk it finished. */
function jobsRun(w: Running): string[] {
  return w
    .stdout()
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { job: string }).job);
}

/** The ids of the jobs running, once there are any (up to 30 s). */
async function activeJobs(q: Queue): Promise<string[]> {
  for (let i = 0; i < 300; i++) {
    const active = (await q.getActive()).map((j) => j.id!);
    if (active.length) return active;
    await new Promise((res) => setTimeout(res, 100));
  }
  return [];
}

const queueName = (): string => `t-${randomUUID().slice(0, 8)}`;
const worker = (url: string, name: string, ...extra: string[]): Running => startCli(['worker', '--queue', url, '--queue-name', name, '--threads', '1', '--lock-ms', '2000', '--json', ...extra]);
const coordinator = (url: string, name: string, bits: number, seed: bigint, count: number, ...extra: string[]): Running =>
  startCli(['search', '--bits', String(bits), '--count', String(count), '--seed', String(seed), '--queue', url, '--queue-name', name, ...extra]);

/**
 * A 1024-bit search with one worker on the TS backend, whose chunks are slow
 * enough to be caught in the middle of one: returned once it runs a chunk.
 */
async function slowWorkerMidChunk(seed: bigint, count: number) {
  const name = queueName();
  const expected = await local(1024, seed, count);
  const slow = worker(redisUrl, name, '--backend', 'js');
  const c = coordinator(redisUrl, name, 1024, seed, count, '--chunk-length', '16384');
  const q = new Queue(name, { connection: { url: redisUrl } });
  return { name, expected, slow, c, q, active: await activeJobs(q) };
}

describe.skipIf(!redisUrl)('search --queue with powprime worker (real redis-server)', () => {
  afterEach(killAll);

  it('gives the lines a local run gives, with two workers', async () => {
    const name = queueName();
    const expected = await local(512, 101n, 6);
    const w1 = worker(redisUrl, name);
    const w2 = worker(redisUrl, name);
    const c = coordinator(redisUrl, name, 512, 101n, 6, '--chunk-length', '1024');
    const r = await c.exited;
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(keys(r.stdout)).toEqual(expected);
    // Several chunks per prime, so the merge of chunk outcomes was really exercised, and both workers took some.
    await new Promise((res) => setTimeout(res, 300));
    expect(jobsRun(w1).length + jobsRun(w2).length).toBeGreaterThan(12);
    // The workers' --json lines follow the JSON convention of docs/cli.md (elapsedMs, not ms).
    for (const line of [...jsonValues(w1.stdout()), ...jsonValues(w2.stdout())]) {
      expect(jsonConventionErrors(line)).toEqual([]);
      expect(Object.keys(line as object).sort()).toEqual(['elapsedMs', 'job', 'offset', 'prime', 'sieved', 'tested']);
    }
  });

  it('a worker killed with -9 mid-chunk: another takes its chunk over when the lock expires', async () => {
    const { name, expected, slow, c, q, active } = await slowWorkerMidChunk(202n, 2);
    try {
      expect(active.length).toBe(1);
      await slow.kill9();
      expect(jobsRun(slow)).not.toContain(active[0]);
      const rescuer = worker(redisUrl, name);
      const r = await c.exited;
      expect(r.status).toBe(0);
      expect(keys(r.stdout)).toEqual(expected);
      await new Promise((res) => setTimeout(res, 300));
      expect(jobsRun(rescuer)).toContain(active[0]);
    } finally {
      await q.close();
    }
  });

  it('Ctrl-C on a worker hands its running chunk back at once, without using an attempt', async () => {
    const { name, expected, slow, c, q, active } = await slowWorkerMidChunk(909n, 1);
    try {
      expect(active.length).toBeGreaterThan(0);
      slow.child.kill('SIGINT');
      const stopped = await slow.exited;
      expect(stopped.status).toBe(130);
      expect(stopped.stderr).toMatch(/^powprime: interrupted \(SIGINT\): worker stopped after \d+ chunks?; running chunks went back to the queue$/m);
      const job = await q.getJob(active[0]!);
      expect(['waiting', 'delayed', 'prioritized']).toContain(await job!.getState());
      expect(job!.attemptsMade).toBe(0);
      worker(redisUrl, name);
      const r = await c.exited;
      expect(r.status).toBe(0);
      expect(keys(r.stdout)).toEqual(expected);
    } finally {
      await q.close();
    }
  });

  it('progress: no worker is 0 chunks running and 0 workers; a worker killed with -9 leaves queue status at once; --json instants as ISO', async () => {
    const name = queueName();
    const c = coordinator(redisUrl, name, 512, 606n, 2, '--progress=json');
    const ticks = (): Record<string, unknown>[] =>
      c
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await c.waitFor(() => ticks().length >= 3, 'three progress ticks');
    // Chunks are queued, but nobody holds one: none is counted as running.
    expect(ticks().at(-1)).toMatchObject({ event: 'progress', done: 0, total: 2, chunksRunning: 0, workers: 0 });
    const w = worker(redisUrl, name);
    type Status = { workers: { pid: number; seenAt: string }[] };
    let s: Status = { workers: [] };
    for (let i = 0; i < 50 && s.workers.length === 0; i++) {
      s = JSON.parse((await runCli('queue', 'status', '--queue', redisUrl, '--queue-name', name, '--json')).stdout) as Status;
    }
    expect(s.workers.map((x) => x.pid)).toEqual([w.child.pid]);
    expect(s.workers[0]!.seenAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await w.kill9();
    // Its entry is still fresh (refreshed every 2 s, stale after 10 s), but its process is gone.
    const after = JSON.parse((await runCli('queue', 'status', '--queue', redisUrl, '--queue-name', name, '--json')).stdout) as Status;
    expect(after.workers).toEqual([]);
    const text = await runCli('queue', 'status', '--queue', redisUrl, '--queue-name', name);
    expect(text.stdout).toMatch(/^workers: 0 live, 0 threads/m);
  });

  it('a coordinator killed with -9 and restarted resumes from --out and reuses the stored chunks', async () => {
    const name = queueName();
    const dir = tempDir();
    const out = join(dir, 'primes.jsonl');
    const expected = await local(512, 303n, 8);
    const w = worker(redisUrl, name);
    const first = coordinator(redisUrl, name, 512, 303n, 8, '--chunk-length', '1024', '--out', out);
    await first.waitFor(() => readFileSync(out, 'utf8').split('\n').length > 3, 'three lines in --out');
    await first.kill9();
    const second = coordinator(redisUrl, name, 512, 303n, 8, '--chunk-length', '1024', '--out', out);
    const r = await second.exited;
    expect(r.status).toBe(0);
    expect(keys(readFileSync(out, 'utf8'))).toEqual(expected);
    await new Promise((res) => setTimeout(res, 300));
    const jobs = jobsRun(w);
    expect(new Set(jobs).size).toBe(jobs.length);
  });

  it('coordinators sharing one queue: the same search twice and another one, each equal to its local run, no chunk run twice', async () => {
    const name = queueName();
    const [a, b] = [await local(512, 404n, 12), await local(512, 505n, 12)];
    const w = worker(redisUrl, name, '--threads', '2', '--concurrency', '2');
    const c1 = coordinator(redisUrl, name, 512, 404n, 12, '--chunk-length', '1024');
    const c2 = coordinator(redisUrl, name, 512, 404n, 12, '--chunk-length', '1024');
    const c3 = coordinator(redisUrl, name, 512, 505n, 12, '--chunk-length', '1024');
    let s: { workers: { threads: number; concurrency: number }[]; searches: { seed: string; count: number }[] } = { workers: [], searches: [] };
    for (let i = 0; i < 20 && (s.workers.length === 0 || s.searches.length === 0); i++) {
      const status = await runCli('queue', 'status', '--queue', redisUrl, '--queue-name', name, '--json');
      expect(status.status).toBe(0);
      s = JSON.parse(status.stdout) as typeof s;
    }
    expect(s.workers).toEqual([expect.objectContaining({ threads: 2, concurrency: 2 })]);
    expect(s.searches.length).toBeGreaterThan(0);
    expect(s.searches.every((x) => ['404', '505'].includes(x.seed) && x.count === 12)).toBe(true);
    const text = await runCli('queue', 'status', '--queue', redisUrl, '--queue-name', name);
    expect(text.stdout).toMatch(/^workers: 1 live, 2 threads/m);
    const [r1, r2, r3] = await Promise.all([c1.exited, c2.exited, c3.exited]);
    expect([r1.status, r2.status, r3.status]).toEqual([0, 0, 0]);
    expect(keys(r1.stdout)).toEqual(a);
    expect(keys(r2.stdout)).toEqual(a);
    expect(keys(r3.stdout)).toEqual(b);
    await new Promise((res) => setTimeout(res, 300));
    const jobs = jobsRun(w);
    expect(new Set(jobs).size).toBe(jobs.length);
  });

  it('Redis killed mid-run and started again empty: work is redone, no line wrong or missing', async () => {
    const own = await startRedis();
    try {
      const name = queueName();
      const expected = await local(512, 606n, 10);
      worker(own.url, name);
      const c = coordinator(own.url, name, 512, 606n, 10, '--chunk-length', '1024');
      await c.waitFor((out) => out.split('\n').length > 2, 'two primes');
      own.child.kill('SIGKILL');
      await new Promise((res) => setTimeout(res, 1000));
      const again = await startRedis(own.port);
      own.child = again.child;
      const r = await c.exited;
      expect(r.status).toBe(0);
      expect(keys(r.stdout)).toEqual(expected);
      expect(r.stderr).toMatch(/lost the connection/);
    } finally {
      own.child.kill('SIGKILL');
    }
  });

  it('a chunk that fails on every attempt ends the run with exit 1 and the error', async () => {
    const name = queueName();
    // A poisoned queue: the job the coordinator will ask for already exists with data no worker can run.
    const q = new Queue(name, { connection: { url: redisUrl } });
    const id = chunkId(512, 707n, 0n, 0n, 1024n, 2);
    await q.add('chunk', { bits: 'x', seed: '707', index: '0', from: '0', to: '1024', stream: 2 }, { jobId: id });
    await q.close();
    worker(redisUrl, name);
    const r = await coordinator(redisUrl, name, 512, 707n, 3, '--chunk-length', '1024').exited;
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`chunk ${id} failed`);
    expect(r.stderr).toMatch(/bad chunk job: bits must be/);
  });

  it('a job of a stream version the worker does not know fails with that said, not a crash', async () => {
    const name = queueName();
    const q = new Queue(name, { connection: { url: redisUrl } });
    const id = chunkId(512, 708n, 0n, 0n, 1024n, 2);
    await q.add('chunk', { bits: 512, seed: '708', index: '0', from: '0', to: '1024', stream: 7 }, { jobId: id });
    await q.close();
    worker(redisUrl, name);
    const r = await coordinator(redisUrl, name, 512, 708n, 3, '--chunk-length', '1024').exited;
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`chunk ${id} failed`);
    expect(r.stderr).toMatch(/stream version 7, which this powprime does not know/);
  });
});

describe.skipIf(!redisUrl)('moduli --queue with powprime worker (real redis-server)', () => {
  afterEach(killAll);

  it('gives the moduli a local run gives', async () => {
    const name = queueName();
    const out = join(tempDir('powprime-queue-moduli-'), 'moduli');
    worker(redisUrl, name);
    const r = await runCli('moduli', '--bits', '2048', '--count', '2', '--seed', '31', '--queue', redisUrl, '--queue-name', name, '--out', out);
    expect(r.status, r.stderr).toBe(0);
    const expected: string[] = [];
    for await (const m of generateModuli({ bits: 2048, count: 2, seed: 31n })) expected.push(m.line.split(' ').slice(1).join(' '));
    expect(readFileSync(out, 'utf8').split('\n')[0]).toMatch(/^# powprime moduli: seed 31 stream 2 \(/);
    expect(timeless(out)).toEqual(expected);
  });

  it('a chunk answered with a prime outside the class it keeps (a worker older than the job) ends the run, naming the worker', async () => {
    const name = queueName();
    // 2^2047 moved up to ≡ 119 (mod 120): a number of the class moduli strike (no ssh-keygen generator).
    const low = 2n ** 2047n;
    const struck = low + ((119n - (low % 120n) + 120n) % 120n);
    const old = new Worker(name, async () => ({ offset: '0', prime: struck.toString(), sieved: 1, tested: 1, ms: 1, worker: 'old-worker' }), { connection: { url: redisUrl } });
    try {
      const r = await runCli('moduli', '--bits', '2048', '--count', '1', '--seed', '32', '--queue', redisUrl, '--queue-name', name);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        /^powprime: chunk \S+ failed after 1 attempt: worker old-worker returned a prime outside the class its chunk keeps \(sshGenerator\): it runs an older powprime; upgrade it\n$/,
      );
    } finally {
      await old.close();
    }
  });

  it('a job keeping a class the worker does not know fails with that said', async () => {
    const name = queueName();
    const q = new Queue(name, { connection: { url: redisUrl } });
    const id = chunkId(512, 709n, 0n, 0n, 1024n, 2);
    await q.add('chunk', { bits: 512, seed: '709', index: '0', from: '0', to: '1024', stream: 2, keep: 'primesOfTomorrow' }, { jobId: id });
    await q.close();
    worker(redisUrl, name);
    const r = await coordinator(redisUrl, name, 512, 709n, 3, '--chunk-length', '1024').exited;
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/keeps "primesOfTomorrow" primes, which this powprime does not know: upgrade it/);
  });
});

describe.skipIf(!redisUrl)('search --queue --register (real redis-server, fake registry)', () => {
  let fake: FakeServices;
  beforeAll(async () => {
    fake = await startFakeServices();
  });
  afterAll(() => fake.close());
  afterEach(killAll);

  it('a coordinator killed with -9 while registering, then rerun: every prime registered exactly once, keys kept', async () => {
    const name = queueName();
    const dir = tempDir();
    const out = join(dir, 'primes.jsonl');
    const args = [
      ...['search', '--bits', '512', '--count', '10', '--seed', '808', '--queue', redisUrl, '--queue-name', name, '--chunk-length', '1024'],
      ...['--out', out, '--register', '--base-url', fake.url.href, '--state-dir', join(dir, 'reg'), '--no-limits', '--register-rate', '20/1', '--json'],
    ];
    worker(redisUrl, name);
    const first = startCli(args);
    await first.waitFor(() => readFileSync(out, 'utf8').trim().split('\n').length >= 3, 'three lines in --out');
    await first.kill9();
    const rerun = await startCli(args).exited;
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ total: 10 });
    const primes = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => BigInt((JSON.parse(l) as { prime: string }).prime));
    expect(primes).toHaveLength(10);
    const added = fake.registry.added.filter((p) => primes.includes(p));
    expect(added.length).toBe(10);
    expect(new Set(added).size).toBe(10);
    const ledger = JSON.parse(readFileSync(hostStateFile(join(dir, 'reg'), 'keys.json', hostTag(fake.url)), 'utf8')) as { prime: string; state: string }[];
    const states = new Map(ledger.map((e) => [e.prime, e.state]));
    for (const p of primes) expect(['registered', 'key-lost']).toContain(states.get(p.toString()));
    if ([...states.values()].includes('key-lost')) expect(rerun.stderr).toMatch(/KEY LOST/);
  });
});

describe("queue objects' error events", () => {
  it("a worker's connection errors are left to the presence connection; a failure of its own loop is one notice", async () => {
    // A real refused connection, as ioredis passes it on.
    const port = await freePort();
    const refused = await new Promise<Error>((res) => connect(port, '127.0.0.1').once('error', res));
    expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    const worker = new EventEmitter();
    const notices: string[] = [];
    noticeWorkerErrors(worker, 'queue worker', (m) => notices.push(m));
    worker.emit('error', refused);
    worker.emit('error', new Error('Connection is closed.'));
    // bullmq's own words when a job's lock was lost: the job may run again elsewhere.
    worker.emit('error', new Error('could not renew lock for job 7'));
    expect(notices).toEqual(['queue worker: could not renew lock for job 7']);
    // A job gone from an emptied Redis: bullmq says it twice, in its own words; one line says what happened.
    worker.emit('error', new Error('Missing lock for job b2048-s51-i4-o131072-n131072-v2. moveToFinished'));
    worker.emit('error', new Error('Missing lock for job b2048-s51-i4-o131072-n131072-v2. moveToDelayed'));
    expect(notices.slice(1)).toEqual(['queue worker: job b2048-s51-i4-o131072-n131072-v2 vanished from Redis while it ran (Redis emptied or restarted), so its result was not recorded there']);
    // A queue's errors reach its callers: none is said, and none ends the process.
    const queue = new EventEmitter();
    ignoreQueueErrors(queue);
    expect(queue.emit('error', new Error('could not renew lock for job 7'))).toBe(true);
  });

  it('a failure the worker repeats is said once a quiet period, with how often it came meanwhile', async () => {
    const worker = new EventEmitter();
    const notices: string[] = [];
    noticeWorkerErrors(worker, 'queue worker', (m) => notices.push(m), 200);
    for (let i = 0; i < 5; i++) worker.emit('error', new Error('could not renew lock for job 7'));
    worker.emit('error', new Error('could not renew lock for job 8'));
    expect(notices).toEqual(['queue worker: could not renew lock for job 7', 'queue worker: could not renew lock for job 8']);
    await new Promise((r) => setTimeout(r, 250));
    worker.emit('error', new Error('could not renew lock for job 7'));
    worker.emit('error', new Error('could not renew lock for job 8'));
    expect(notices.slice(2)).toEqual(['queue worker: could not renew lock for job 7 (4 more times since the last notice)', 'queue worker: could not renew lock for job 8']);
  });
});

describe('queue mode: bad usage', () => {
  it('an unreachable Redis fails within seconds, exit 1', async () => {
    const port = await freePort();
    const r = await runCli('search', '--bits', '64', '--count', '1', '--seed', '1', '--queue', `redis://127.0.0.1:${port}`);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^powprime: cannot reach the queue at redis:\/\/127\.0\.0\.1:\d+\/0.*ECONNREFUSED/);
  });

  it('a server that is not Redis (an HTTP port): exit 1, saying so, not the client library\'s "Please report this"', async () => {
    const http = createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    });
    await new Promise<void>((res) => http.listen(0, '127.0.0.1', res));
    try {
      const r = await runCli('search', '--bits', '64', '--count', '1', '--seed', '1', '--queue', `redis://127.0.0.1:${(http.address() as AddressInfo).port}`);
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^powprime: cannot reach the queue at redis:\/\/127\.0\.0\.1:\d+\/0: the server there does not speak Redis's protocol \(Unknown RESP type/),
      ]);
      expect(r.stderr).not.toMatch(/report this/i);
    } finally {
      http.close();
    }
  });

  describe('with --register', () => {
    let fake: FakeServices;
    beforeAll(async () => {
      fake = await startFakeServices();
    });
    afterAll(() => fake.close());
    afterEach(killAll);

    const registering = (url: string): Running =>
      startCli(['search', '--bits', '256', '--count', '2', '--seed', '3', '--queue', url, '--register', '--base-url', fake.url.href, '--state-dir', join(tempDir(), 'reg'), '--no-limits']);

    it('an unreachable Redis fails within seconds, exit 1, one line (the registration queue waited for it for ever)', async () => {
      const port = await freePort();
      const c = registering(`redis://127.0.0.1:${port}`);
      const r = await Promise.race([c.exited, new Promise<null>((res) => setTimeout(() => res(null), 20_000))]);
      expect(r, 'still running after 20 s').not.toBeNull();
      expect(r!.status).toBe(1);
      expect(r!.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^powprime: cannot reach the queue at redis:\/\/127\.0\.0\.1:\d+\/0.*ECONNREFUSED/)]);
    });

    it('SIGTERM while Redis does not answer: exit 143 at once, not after the connect timeout', async () => {
      // Accepts connections and never answers: the connect check waits its 5 s.
      const silent = createServer(() => {});
      const contacted = new Promise((res) => silent.once('connection', res));
      await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
      try {
        const c = registering(`redis://127.0.0.1:${(silent.address() as AddressInfo).port}`);
        await contacted;
        const sent = Date.now();
        c.child.kill('SIGTERM');
        const r = await c.exited;
        expect(Date.now() - sent).toBeLessThan(3_000);
        expect(r.status).toBe(143);
        expect(r.stderr).toMatch(/^powprime: interrupted \(SIGTERM\)/);
      } finally {
        silent.close();
      }
    });
  });

  it.skipIf(!redisUrl)('a database the server does not have: exit 2, one line, for search, worker and queue status', async () => {
    const url = `${redisUrl!.replace(/\/\d*$/, '')}/99`;
    for (const args of [
      ['search', '--bits', '64', '--count', '1', '--seed', '1', '--queue', url],
      ['worker', '--queue', url],
      ['queue', 'status', '--queue', url],
    ]) {
      const r = await runCli(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^powprime: --queue database 99 cannot be used on redis:.*\/99: .*out of range/i)]);
    }
  });

  it.each([
    [['search', '--bits', '64', '--count', '1', '--queue', 'http://x'], /--queue must be a redis:\/\//],
    [['search', '--bits', '64', '--count', '1', '--queue', ''], /--queue must be a URL/],
    [['search', '--bits', '64', '--count', '1', '--queue', 'redis://h/abc'], /database must be a number/],
    [['search', '--bits', '64', '--count', '1', '--queue', 'redis://h', '--queue-name', 'a:b'], /--queue-name/],
    [['search', '--bits', '64', '--count', '1', '--seed', '1', '--queue', 'redis://h', '--shard', '1/2'], /do not go together/],
    [['search', '--bits', '64', '--count', '1', '--chunk-length', '10'], /--chunk-length goes with --queue/],
    [['worker', '--queue', 'redis://h', '--concurrency', '0'], /--concurrency/],
    [['worker', '--queue', 'redis://h', '--threads', '3', '--concurrency', '4'], /--concurrency 4 is more than --threads 3/],
    [['search', '--bits', '64', '--count', '1', '--register-rate', '5/60'], /--register-rate goes with --queue and --register/],
    [['worker', '--queue', 'redis://h', '--lock-ms', '5'], /--lock-ms/],
  ])('%j → exit 2, one line', async (args, message) => {
    const r = await runCli(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

afterAll(killAll);

beforeAll(() => {
  // Queue tests start processes from source; make sure none leaks across files.
  return killAll;
});
