/**
 * `powprime worker`: takes chunk jobs from the queue and runs each on this
 * machine's pool threads. The main thread only talks to Redis (renewing job
 * locks, publishing presence), so a lock is never lost to a busy event loop.
 */
import type { Job } from 'bullmq';
import type { BackendChoice } from '../backend.ts';
import { resolveBackend } from '../backend.ts';
import { searchSafePrimeRange } from '../prime/range-search.ts';
import type { Keep } from '../prime/sieve.ts';
import { knownKeep, knownStream } from '../prime/search-options.ts';
import type { ChunkData, ChunkOutcome } from './chunk-plan.ts';
import { noticeWorkerErrors, openRedis, type QueueTarget } from './connection.ts';
import { processIdentity, publish, REFRESH_MS, withdraw } from './presence.ts';
import { bestEffort } from '../ignored-rejection.ts';

export interface ChunkWorkerOptions {
  target: QueueTarget;
  /** Pool threads in all; each of the `concurrency` jobs at once gets an equal share. */
  threads: number;
  concurrency: number;
  backend: BackendChoice;
  /**
   * Job lock lifetime. A worker that dies (kill -9, power loss) holds its
   * chunk until the lock expires; the stalled check runs every half lock, so
   * another worker takes the chunk over within 1.5 × lockMs.
   */
  lockMs: number;
  signal: AbortSignal;
  /** One line about something worth a person's attention (connection lost, a chunk failed). */
  onNotice: (message: string) => void;
  onChunk?: (outcome: ChunkOutcome, jobId: string) => void;
}

/** A crashed worker's chunk may stall this many times before the job fails. */
const MAX_STALLED = 3;

export async function runChunkWorker(o: ChunkWorkerOptions): Promise<void> {
  const { Worker, DelayedError, UnrecoverableError } = await import('bullmq');
  const redis = await openRedis(o.target, o.onNotice, o.signal);
  const me = processIdentity();
  const perJob = Math.max(1, Math.floor(o.threads / o.concurrency));
  const backend = resolveBackend(o.backend);
  const recent: { at: number; sieved: number }[] = [];
  let chunks = 0;
  const active = new Set<AbortController>();

  const processor = async (job: Job<ChunkData, ChunkOutcome>, token?: string): Promise<ChunkOutcome> => {
    const d = job.data;
    if (d.cancelled) return { offset: null, prime: null, sieved: 0, tested: 0, ms: 0, worker: me.id, cancelled: true };
    // A job of a stream version this build does not know would search the wrong candidates.
    if (d.stream !== undefined && !knownStream(d.stream)) throw new Error(`job ${job.id} is of stream version ${JSON.stringify(d.stream)}, which this powprime does not know: upgrade it`);
    // So is one keeping a class of primes it does not know.
    if (d.keep !== undefined && !knownKeep(d.keep)) throw new Error(`job ${job.id} keeps ${JSON.stringify(d.keep)} primes, which this powprime does not know: upgrade it`);
    const ac = new AbortController();
    active.add(ac);
    const t0 = performance.now();
    try {
      const r = await searchSafePrimeRange({
        bits: d.bits,
        seed: d.seed,
        index: d.index,
        from: d.from,
        to: d.to,
        stream: d.stream === 2 ? 2 : 1,
        keep: (d.keep ?? 'all') as Keep,
        threads: perJob,
        backend,
        signal: ac.signal,
      });
      const outcome: ChunkOutcome = {
        offset: r.offset?.toString() ?? null,
        prime: r.prime?.toString() ?? null,
        sieved: r.sieved,
        tested: r.tested,
        ms: Math.round(performance.now() - t0),
        worker: me.id,
      };
      chunks++;
      recent.push({ at: Date.now(), sieved: r.sieved });
      o.onChunk?.(outcome, job.id ?? '');
      return outcome;
    } catch (err) {
      if (ac.signal.aborted) {
        // Stopping: the chunk goes straight back to the queue without using one of its attempts.
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      // Job data no chunk can have: retrying cannot help.
      if (err instanceof TypeError || err instanceof RangeError) throw new UnrecoverableError(`bad chunk job: ${err.message}`);
      throw err;
    } finally {
      active.delete(ac);
    }
  };

  const worker = new Worker<ChunkData, ChunkOutcome>(o.target.name, processor, {
    connection: o.target.connection,
    concurrency: o.concurrency,
    lockDuration: o.lockMs,
    stalledInterval: Math.max(Math.round(o.lockMs / 2), 500),
    maxStalledCount: MAX_STALLED,
    autorun: false,
  });
  worker.on('failed', (job, err) => {
    if (err instanceof DelayedError || err.name === 'DelayedError') return;
    o.onNotice(`chunk ${job?.id ?? '?'} failed: ${err.message}`);
  });
  noticeWorkerErrors(worker, 'queue worker', o.onNotice);

  const started = Date.now();
  const beat = async (): Promise<void> => {
    const now = Date.now();
    while (recent.length && now - recent[0]!.at > 60_000) recent.shift();
    const sieved = recent.reduce((s, r) => s + r.sieved, 0);
    const rate = sieved / (Math.min(60_000, Math.max(now - started, 1)) / 1000);
    await bestEffort(
      publish(redis, o.target.name, 'workers', { ...me, threads: o.threads, concurrency: o.concurrency, backend, chunks, rate, seen: now }),
      'a missed heartbeat is sent again in REFRESH_MS; an outage is reported by the presence connection',
    );
  };
  await beat();
  const timer = setInterval(() => void beat(), REFRESH_MS);

  const stop = (): void => {
    for (const ac of active) ac.abort();
  };
  o.signal.addEventListener('abort', stop, { once: true });
  const running = worker.run();
  try {
    await new Promise<void>((resolve) => {
      if (o.signal.aborted) resolve();
      else o.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    clearInterval(timer);
    stop();
    await worker.close();
    await running;
    await bestEffort(withdraw(redis, o.target.name, 'workers', me.id), 'on the way out: a worker not withdrawn drops from the list once its heartbeat is stale');
    redis.disconnect();
  }
}
