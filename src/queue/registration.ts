/**
 * `search --queue … --register`: primes go to a registration queue beside
 * the chunk queue, consumed one at a time across every process on it (the
 * queue's global concurrency is 1, and an optional global rate limit spaces
 * the calls), by the registrar of the coordinator that hosts it. The
 * registrar's keystore is the idempotency ledger: a prime registered before
 * a crash is known there and never sent again.
 */
import type { Job, Queue, Worker } from 'bullmq';
import { ignoreQueueErrors, noticeWorkerErrors, openRedis, untilAborted, type QueueTarget } from './connection.ts';
import { JobWatch } from './job-watch.ts';
import { bestEffort } from '../ignored-rejection.ts';

export interface RegistrationJob {
  prime: string;
  bits: number;
  seed: string;
  index: string;
}

export interface RegistrationQueueOptions {
  target: QueueTarget;
  /** Registers one prime (idempotent through the keystore); returns the ledger state. */
  register: (prime: bigint) => Promise<string>;
  /** At most `max` registrations per `ms`, across every process on the queue. */
  rate?: { max: number; ms: number };
  /** Ends opening at once, with its reason. */
  signal: AbortSignal;
  onNotice: (message: string) => void;
}

/** A rate-limit error from the registry client: when the host may be called again. */
function retryAtOf(err: unknown): number | null {
  const code = (err as { code?: unknown } | null)?.code;
  const at = (err as { retryAt?: unknown } | null)?.retryAt;
  return (code === 'ERR_RATE_LIMITED' || code === 'ERR_RATE_LIMIT_WAIT') && typeof at === 'number' ? at : null;
}

const REGISTRATION_ATTEMPTS = 5;

export class RegistrationQueue {
  /** Submitted here and not yet registered, by job id. */
  private readonly submitted = new Map<string, RegistrationJob>();

  private readonly watch: JobWatch<string>;

  private constructor(
    private readonly queue: Queue<RegistrationJob, string>,
    private readonly worker: Worker<RegistrationJob, string>,
  ) {
    this.watch = new JobWatch(queue, 'registration', REGISTRATION_ATTEMPTS);
  }

  static async open(o: RegistrationQueueOptions): Promise<RegistrationQueue> {
    const { Queue, Worker } = await import('bullmq');
    // The queue objects wait for an unreachable Redis for ever: the first
    // contact goes through openRedis, which gives up within seconds.
    (await openRedis(o.target, o.onNotice, o.signal)).disconnect();
    const name = `${o.target.name}-register`;
    const queue = new Queue<RegistrationJob, string>(name, { connection: o.target.connection });
    ignoreQueueErrors(queue);
    try {
      await untilAborted(queue.setGlobalConcurrency(1), o.signal);
      if (o.rate) await untilAborted(queue.setGlobalRateLimit(o.rate.max, o.rate.ms), o.signal);
    } catch (err) {
      // Not awaited: on a Redis that stopped answering, closing waits for it too.
      void bestEffort(queue.close(), 'the error that got here is the one to throw');
      throw err;
    }
    const worker = new Worker<RegistrationJob, string>(
      name,
      async (job: Job<RegistrationJob, string>) => {
        try {
          return await o.register(BigInt(job.data.prime));
        } catch (err) {
          const at = retryAtOf(err);
          if (at === null) throw err;
          // The registry banned us: pause the whole queue until then, without using an attempt.
          o.onNotice(`registry rate limit: registrations resume at ${new Date(at).toISOString()}`);
          await worker.rateLimit(Math.max(at - Date.now(), 1000));
          throw Worker.RateLimitError();
        }
      },
      // A registration is one short HTTP exchange: a short lock lets the
      // registration a crashed process held go on within 15 s (with the
      // global concurrency of 1, nothing else moves until then).
      { connection: o.target.connection, concurrency: 1, lockDuration: 10_000, stalledInterval: 5_000, maxStalledCount: 3 },
    );
    noticeWorkerErrors(worker, 'registration queue worker', o.onNotice);
    return new RegistrationQueue(queue, worker);
  }

  /** Queues one prime for registration (at most once per search index, by job id). */
  async submit(job: RegistrationJob): Promise<void> {
    const id = `reg-b${job.bits}-s${BigInt(job.seed).toString(16)}-i${job.index}`;
    this.submitted.set(id, job);
    await this.add(id, job);
  }

  private async add(id: string, job: RegistrationJob): Promise<void> {
    await this.queue.add('register', job, { jobId: id, attempts: REGISTRATION_ATTEMPTS, backoff: { type: 'exponential', delay: 2_000 }, removeOnComplete: { age: 7 * 24 * 3600 } });
  }

  /** Waits until every prime submitted here is registered; a registration that failed on every attempt is thrown. */
  async drain(signal: AbortSignal): Promise<void> {
    while (this.submitted.size) {
      if (signal.aborted) return;
      for (const [id, data] of [...this.submitted]) {
        const w = await this.watch.look(id);
        if (w.state === 'done') this.submitted.delete(id);
        // Gone from Redis (restarted): the keystore keeps it from being registered twice.
        else if (w.state === 'missing') await this.add(id, data);
      }
      if (this.submitted.size) await new Promise((r) => setTimeout(r, 200));
    }
  }

  async close(): Promise<void> {
    await this.worker.close();
    await this.queue.close();
  }
}
