import type { Command } from 'commander';
import { DEFAULT_QUEUE_NAME, openRedis, parseQueueTarget } from '../queue/connection.ts';
import { live, type CoordinatorPresence, type WorkerPresence } from '../queue/presence.ts';
import { formatRate } from './args.ts';

interface StatusOpts {
  queue: string;
  queueName: string;
  json?: boolean;
}

export function registerQueue(program: Command): void {
  const queue = program.command('queue').description('look at the queue that `search --queue` and `powprime worker` share');
  queue
    .command('status')
    .description('jobs by state, live workers and their rate, and the searches being coordinated')
    .requiredOption('--queue <redis-url>', 'the Redis, e.g. redis://host:6379/0')
    .option('--queue-name <name>', 'the queue', DEFAULT_QUEUE_NAME)
    .option('--json', 'print it as one JSON object')
    .action(async (opts: StatusOpts) => {
      const target = parseQueueTarget(opts.queue, opts.queueName);
      const { Queue } = await import('bullmq');
      const redis = await openRedis(target, () => {});
      const q = new Queue(target.name, { connection: target.connection });
      q.on('error', () => {});
      try {
        const jobs = await q.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
        const workers = await live<WorkerPresence>(redis, target.name, 'workers');
        const searches = await live<CoordinatorPresence>(redis, target.name, 'coordinators');
        const rate = workers.reduce((s, w) => s + w.rate, 0);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify({ queue: target.name, redis: target.display, jobs, workers, rate, searches })}\n`);
          return;
        }
        const now = Date.now();
        const lines = [
          `queue ${target.name} on ${target.display}`,
          `jobs: ${jobs.waiting! + jobs.prioritized!} waiting, ${jobs.active} active, ${jobs.delayed} delayed, ${jobs.completed} completed, ${jobs.failed} failed`,
          `workers: ${workers.length} live, ${workers.reduce((n, w) => n + w.threads, 0)} threads, ${formatRate(rate)} candidates`,
          ...workers.map(
            (w) => `  ${w.id}  ${w.threads} threads × ${w.concurrency} chunk${w.concurrency > 1 ? 's' : ''}  ${w.backend}  ${w.chunks} chunks  ${formatRate(w.rate)}  seen ${Math.round((now - w.seen) / 1000)} s ago`,
          ),
          `searches: ${searches.length}`,
          ...searches.map((c) => `  ${c.bits} bits, seed ${c.seed}: ${c.done} of ${c.count} primes, ${c.inflight} chunks in flight (coordinator ${c.id})`),
        ];
        process.stdout.write(`${lines.join('\n')}\n`);
      } finally {
        await q.close().catch(() => {});
        redis.disconnect();
      }
    });
}
