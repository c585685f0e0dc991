/**
 * `powprime search --queue`: the coordinator. It hands chunk jobs to the
 * queue (chunk-plan.ts decides which), polls the ones in flight, and emits
 * settled primes in index order. Redis is never the source of truth: a job
 * that vanished (Redis restarted, keys deleted) is simply added again, and
 * what is emitted is written by the caller before anything else happens.
 */
import type { JobsOptions, Queue } from 'bullmq';
import { abortReason } from '../validate.ts';
import { ChunkPlan, type Chunk, type ChunkData, type ChunkOutcome, type SettledIndex } from './chunk-plan.ts';
import { ignoreQueueErrors, openRedis, type QueueTarget } from './connection.ts';
import type { Keep } from '../prime/sieve.ts';
import { LATEST_STREAM, type StreamVersion } from '../prime/stream.ts';
import { JobWatch } from './job-watch.ts';
import { live, processIdentity, publish, REFRESH_MS, withdraw, type WorkerPresence } from './presence.ts';
import { bestEffort } from '../ignored-rejection.ts';

export interface CoordinatorOptions {
  target: QueueTarget;
  bits: number;
  seed: bigint;
  startIndex: bigint;
  stride: bigint;
  count: bigint;
  /** Candidates per chunk job (default by bit length: about a second or two of one core). */
  chunkLength?: bigint;
  /** The stream version the jobs search (default 2). */
  stream?: StreamVersion;
  /** The class of safe primes that counts (default all; moduli keep those with an ssh-keygen generator). */
  keep?: Keep;
  signal: AbortSignal;
  /** Called for each prime in index order; the prime counts as done when this returns. */
  onPrime: (r: SettledIndex) => void | Promise<void>;
  onProgress?: (p: CoordinatorProgress) => void;
  onNotice: (message: string) => void;
  /** How often chunks in flight are looked at. */
  pollMs?: number;
}

interface CoordinatorProgress {
  done: number;
  /** Chunks a worker holds now (queued ones that nobody has taken are not counted). */
  held: number;
  workers: WorkerPresence[];
  /** Candidates sieved per second by all live workers. */
  rate: number;
}

/** Attempts per chunk: a chunk that throws this often is reported and ends the run. */
const CHUNK_ATTEMPTS = 3;

const JOB_OPTIONS: JobsOptions = {
  attempts: CHUNK_ATTEMPTS,
  backoff: { type: 'exponential', delay: 1_000 },
  // Kept for a week so a restarted coordinator (or a second one on the same
  // search) reuses finished chunks; removing them sooner would let the same
  // job id run again.
  removeOnComplete: { age: 7 * 24 * 3600 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

export async function coordinate(o: CoordinatorOptions): Promise<void> {
  const { Queue } = await import('bullmq');
  const redis = await openRedis(o.target, o.onNotice, o.signal);
  const queue: Queue<ChunkData, ChunkOutcome> = new Queue(o.target.name, { connection: o.target.connection });
  ignoreQueueErrors(queue);
  const me = processIdentity();
  const plan = new ChunkPlan({
    bits: o.bits,
    seed: o.seed,
    startIndex: o.startIndex,
    stride: o.stride,
    count: o.count,
    length: o.chunkLength,
    stream: o.stream ?? LATEST_STREAM,
    keep: o.keep ?? 'all',
  });
  const watch = new JobWatch<ChunkOutcome>(queue, 'chunk', CHUNK_ATTEMPTS);
  const pollMs = o.pollMs ?? 200;
  let done = 0;
  let workers: WorkerPresence[] = [];
  let lastLook = 0;
  let lostReported = false;
  // Of this search's chunks, how many a worker holds (bullmq's active list), looked up with the presence.
  let held = 0;
  // Chunk times lately (ms), for how many chunks to keep queued.
  const recentMs: number[] = [];
  // Chunks found gone from Redis this round.
  const missing: Chunk[] = [];

  const add = async (chunks: Chunk[]): Promise<void> => {
    if (chunks.length) await queue.addBulk(chunks.map((c) => ({ name: 'chunk', data: c.data, opts: { ...JOB_OPTIONS, jobId: c.id } })));
  };

  // One look at a chunk in flight: its outcome if finished; noted if Redis lost it.
  const look = async (c: Chunk): Promise<void> => {
    const w = await watch.look(c.id);
    if (w.state === 'done' && w.value) {
      plan.complete(c.id, w.value);
      recentMs.push(w.value.ms);
      if (recentMs.length > 20) recentMs.shift();
    } else if (w.state === 'missing') {
      missing.push(c);
    }
  };
  // A chunk made useless is marked rather than removed: a removed id could be
  // added again by another coordinator of the same search and run twice. One
  // already running finishes unread.
  const cancel = async (c: Chunk): Promise<void> => {
    const job = await queue.getJob(c.id);
    const state = await job?.getState();
    if (job && (state === 'waiting' || state === 'delayed' || state === 'prioritized')) await job.updateData({ ...job.data, cancelled: true });
  };
  // Chunks gone from Redis are added again after this round's outcomes are
  // in: another coordinator of the same search may have removed one that a
  // lower chunk's prime has just made useless here too.
  const addMissing = async (): Promise<void> => {
    const wanted = new Set(plan.running.map((c) => c.id));
    const again = missing.splice(0).filter((c) => wanted.has(c.id));
    if (again.length && !lostReported) {
      o.onNotice('chunks in flight are missing from the queue (Redis restarted or was cleared); adding them again');
      lostReported = true;
    }
    await add(again);
  };

  // Enough chunks queued that no worker waits for the next poll: two per
  // worker slot, and more when chunks are shorter than a poll.
  const capacity = (): number => {
    const slots = Math.max(
      1,
      workers.reduce((n, w) => n + w.concurrency, 0),
    );
    const sorted = [...recentMs].sort((a, b) => a - b);
    const chunkMs = sorted.length ? Math.max(sorted[sorted.length >> 1]!, 1) : pollMs;
    return slots * Math.min(2 + Math.ceil(pollMs / chunkMs), 64);
  };

  try {
    while (!plan.finished) {
      if (o.signal.aborted) throw abortReason(o.signal);
      if (Date.now() - lastLook >= REFRESH_MS / 2) {
        lastLook = Date.now();
        workers = await live<WorkerPresence>(redis, o.target.name, 'workers');
        const active = new Set((await queue.getJobs(['active'])).map((j) => j.id));
        held = plan.running.filter((c) => active.has(c.id)).length;
        await publish(redis, o.target.name, 'coordinators', {
          ...me,
          bits: o.bits,
          seed: o.seed.toString(),
          done,
          count: Number(o.count),
          inflight: held,
          seen: Date.now(),
        });
      }
      await add(plan.dispatch(capacity()));
      await Promise.all(plan.running.map(look));
      for (const c of plan.takeUseless()) await cancel(c);
      await addMissing();
      for (const r of plan.takeReady()) {
        await o.onPrime(r);
        done++;
      }
      o.onProgress?.({ done, held, workers, rate: workers.reduce((s, w) => s + w.rate, 0) });
      if (!plan.finished) await sleep(pollMs, o.signal);
    }
  } finally {
    await bestEffort(withdraw(redis, o.target.name, 'coordinators', me.id), 'on the way out: a coordinator not withdrawn drops from the list once its heartbeat is stale');
    await bestEffort(queue.close(), 'on the way out, perhaps with Redis gone: the connection is dropped next anyway');
    redis.disconnect();
  }
}
