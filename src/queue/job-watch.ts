/**
 * What became of a job this process added and is waiting for, as the
 * coordinator (chunks) and the registration queue both ask it: done with its
 * return value, gone from Redis (restarted or cleared: the caller adds it
 * again), or still to come. A failure left by an earlier run is retried
 * once; a failure in this run is thrown with the worker's error.
 */
import type { Queue } from 'bullmq';
import { QueueJobFailedError } from '../errors.ts';

export type Watched<R> = { state: 'done'; value: R } | { state: 'missing' } | { state: 'pending' };

export class JobWatch<R> {
  private readonly since = Date.now();
  private readonly retried = new Set<string>();

  constructor(
    private readonly queue: Queue,
    private readonly kind: 'chunk' | 'registration',
    private readonly attempts: number,
  ) {}

  async look(id: string): Promise<Watched<R>> {
    const state = await this.queue.getJobState(id);
    if (state === 'unknown') return { state: 'missing' };
    if (state !== 'completed' && state !== 'failed') return { state: 'pending' };
    // Removed between the two calls: the next look says missing.
    const job = await this.queue.getJob(id);
    if (!job) return { state: 'pending' };
    if (state === 'completed') return { state: 'done', value: job.returnvalue as R };
    if ((job.finishedOn ?? 0) < this.since && !this.retried.has(id)) {
      this.retried.add(id);
      await job.retry('failed');
      return { state: 'pending' };
    }
    throw new QueueJobFailedError(this.kind, id, job.attemptsMade ?? this.attempts, job.failedReason ?? 'no reason recorded');
  }
}
