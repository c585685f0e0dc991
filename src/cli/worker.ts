import type { Command } from 'commander';
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { InterruptedError } from '../errors.ts';
import { poolSize } from '../pool/pool.ts';
import { DEFAULT_QUEUE_NAME, parseQueueTarget } from '../queue/connection.ts';
import { MAX_LOCK_MS, MAX_WORKER_CONCURRENCY, MIN_LOCK_MS } from '../limits.ts';
import { checkInteger, checkOneOf, checkThreads } from '../validate.ts';
import { formatRate, parseIntArg } from './args.ts';
import { interruptSignal } from './interrupt.ts';
import { plural } from './plural.ts';
import { StatusLine } from './status.ts';

interface WorkerOpts {
  queue: string;
  queueName: string;
  threads?: string;
  concurrency: string;
  backend: string;
  lockMs: string;
  json?: boolean;
}

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run chunks of `powprime search --queue` runs on this machine until stopped (Ctrl-C, SIGTERM or SIGHUP hands running chunks back)')
    .requiredOption('--queue <redis-url>', 'the Redis the coordinators use, e.g. redis://host:6379/0')
    .option('--queue-name <name>', 'the queue to take chunks from', DEFAULT_QUEUE_NAME)
    .option('--threads <n>', 'pool threads for chunks (default: one per core)')
    .option('--concurrency <k>', 'chunks at once, sharing the threads', '1')
    .option('--backend <name>', 'auto, native or js', 'auto')
    .option('--lock-ms <ms>', "job lock: a killed worker's chunk goes to another worker within 1.5× this", '10000')
    .option('--json', 'print one JSON line per chunk finished: {"job","prime","offset","sieved","tested","elapsedMs"}')
    .addHelpText(
      'after',
      '\nExamples:\n  powprime worker --queue redis://localhost:6379                 # one per machine, all its cores\n  powprime worker --queue redis://queue-host:6379/0 --threads 4',
    )
    .action(async (opts: WorkerOpts) => {
      const target = parseQueueTarget(opts.queue, opts.queueName);
      // Checked before Redis is touched: chunks reach the search's own checks only once they arrive.
      const threads = opts.threads === undefined ? poolSize() : checkThreads('--threads', parseIntArg('--threads', opts.threads));
      const concurrency = checkInteger('--concurrency', parseIntArg('--concurrency', opts.concurrency), 1, MAX_WORKER_CONCURRENCY);
      // Each chunk at once takes a thread at least: more chunks than threads would run on threads not given.
      if (opts.threads !== undefined && concurrency > threads) throw new RangeError(`--concurrency ${concurrency} is more than --threads ${threads}: each chunk at once needs a thread of its own`);
      const lockMs = checkInteger('--lock-ms', parseIntArg('--lock-ms', opts.lockMs), MIN_LOCK_MS, MAX_LOCK_MS);
      const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
      const status = new StatusLine();
      const notice = (m: string): void => {
        status.clear();
        process.stderr.write(`powprime: ${m}\n`);
      };
      let chunks = 0;
      let sieved = 0;
      const started = performance.now();
      const { runChunkWorker } = await import('../queue/chunk-worker.ts');
      try {
        status.update(`worker on ${target.display} queue ${target.name}: waiting for chunks (Ctrl-C to stop)`);
        await runChunkWorker({
          target,
          threads,
          concurrency,
          backend,
          lockMs,
          signal: interruptSignal,
          onNotice: notice,
          onChunk: (o, jobId) => {
            chunks++;
            sieved += o.sieved;
            if (opts.json) process.stdout.write(`${JSON.stringify({ job: jobId, prime: o.prime, offset: o.offset, sieved: o.sieved, tested: o.tested, elapsedMs: o.ms })}\n`);
            const rate = sieved / ((performance.now() - started) / 1000);
            status.update(`worker on ${target.display} queue ${target.name}: ${plural(chunks, 'chunk')} | ${formatRate(rate)} candidates (Ctrl-C to stop)`, { chunks, sieved, rate: Math.round(rate) });
          },
        });
      } catch (err) {
        if (!interruptSignal.aborted) throw err;
      } finally {
        status.clear();
      }
      // Stopped by SIGINT, SIGTERM or SIGHUP (a second one leaves at once: the chunks' locks expire and other workers take them).
      if (interruptSignal.aborted) {
        const { signal } = interruptSignal.reason as InterruptedError;
        throw new InterruptedError(signal, `worker stopped after ${plural(chunks, 'chunk')}; running chunks went back to the queue`);
      }
    });
}
