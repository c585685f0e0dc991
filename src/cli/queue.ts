import type { Command } from 'commander';
import { plural } from './plural.ts';
import { DEFAULT_QUEUE_NAME, ignoreQueueErrors, openRedis, parseQueueTarget } from '../queue/connection.ts';
import { live, type CoordinatorPresence, type WorkerPresence } from '../queue/presence.ts';
import { formatRate } from './args.ts';
import { bestEffort } from '../ignored-rejection.ts';

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
      ignoreQueueErrors(q);
      try {
        const jobs = await q.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
        const workers = await live<WorkerPresence>(redis, target.name, 'workers');
        const searches = await live<CoordinatorPresence>(redis, target.name, 'coordinators');
        const rate = workers.reduce((s, w) => s + w.rate, 0);
        if (opts.json) {
          // Instants as ISO 8601 and rates as whole candidates per second, as all of powprime's JSON.
          const entry = <T extends { seen: number }>({ seen, ...rest }: T) => ({ ...rest, seenAt: new Date(seen).toISOString() });
          const json = {
            queue: target.name,
            redis: target.display,
            jobs,
            workers: workers.map((w) => ({ ...entry(w), rate: Math.round(w.rate) })),
            rate: Math.round(rate),
            searches: searches.map(entry),
          };
          process.stdout.write(`${JSON.stringify(json)}\n`);
          return;
        }
        const now = Date.now();
        const lines = [
          `queue ${target.name} on ${target.display}`,
          `jobs: ${jobs.waiting! + jobs.prioritized!} waiting, ${jobs.active} active, ${jobs.delayed} delayed, ${jobs.completed} completed, ${jobs.failed} failed`,
          `workers: ${workers.length} live, ${plural(
            workers.reduce((n, w) => n + w.threads, 0),
            'thread',
          )}, ${formatRate(rate)} candidates`,
          ...workers.map(
            (w) =>
              `  ${w.id}  ${plural(w.threads, 'thread')} × ${plural(w.concurrency, 'chunk')}  ${w.backend}  ${plural(w.chunks, 'chunk')} done  ${formatRate(w.rate)}  seen ${Math.round((now - w.seen) / 1000)} s ago`,
          ),
          `searches: ${searches.length}`,
          ...searches.map((c) => `  ${c.bits} bits, seed ${c.seed}: ${c.done} of ${plural(c.count, 'prime')}, ${plural(c.inflight, 'chunk')} running (coordinator ${c.id})`),
        ];
        process.stdout.write(`${lines.join('\n')}\n`);
      } finally {
        await bestEffort(q.close(), 'the status is printed; the connection is dropped next anyway');
        redis.disconnect();
      }
    });
}
