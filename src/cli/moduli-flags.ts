/**
 * `powprime moduli`'s flags: each checked, and which go together, before a
 * file is opened or Redis touched (moduli.ts runs what they ask for).
 */
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { parseSeed } from '../prime/seed.ts';
import { DEFAULT_QUEUE_NAME, parseQueueTarget, type QueueTarget } from '../queue/connection.ts';
import { checkCount, checkOneOf, checkRounds, checkThreads } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { parseSizes } from './moduli-sizes.ts';
import { parseShard, type Shard } from './shard.ts';

export interface ModuliOpts {
  bits?: string[];
  count?: string;
  seed?: string;
  threads?: string;
  backend: string;
  rounds?: string;
  out?: string;
  json?: boolean;
  screen?: string;
  shard?: string;
  shardCount?: string;
  queue?: string;
  queueName: string;
}

export interface ModuliFlags {
  sizes: number[];
  count: number;
  threads: number | undefined;
  backend: BackendChoice;
  rounds: number | undefined;
  seed: bigint | undefined;
  shard: Shard | null;
  target: QueueTarget | null;
}

export function parseModuliFlags(opts: ModuliOpts): ModuliFlags {
  if (opts.bits === undefined) {
    // A resume needs them too: the file holds the sizes done so far, not those a stopped run had still to do.
    const again = opts.out === undefined ? '' : '; to resume --out, give the sizes the run was started with';
    throw new RangeError(`--bits is needed (or --screen FILE to check a moduli file)${again}`);
  }
  // A bad size is said before a missing count: the first mistake on the line first.
  const sizes = parseSizes(opts.bits);
  if (opts.count === undefined) throw new RangeError('--count is needed: how many moduli of each size');
  const count = Number(checkCount('--count', parseIntArg('--count', opts.count)));
  const threads = opts.threads === undefined ? undefined : checkThreads('--threads', parseIntArg('--threads', opts.threads));
  const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
  const rounds = opts.rounds === undefined ? undefined : checkRounds('--rounds', parseIntArg('--rounds', opts.rounds));
  const seed = opts.seed === undefined ? undefined : parseSeed('--seed', opts.seed);
  const shard = opts.shard === undefined ? null : parseShard(opts.shard, opts.shardCount);
  if (opts.shardCount !== undefined && opts.shard !== 'auto') throw new RangeError('--shard-count goes with --shard auto');
  if (opts.queueName !== DEFAULT_QUEUE_NAME && opts.queue === undefined) throw new RangeError('--queue-name goes with --queue');
  const target = opts.queue === undefined ? null : parseQueueTarget(opts.queue, opts.queueName);
  if (target && shard) throw new RangeError('--shard and --queue do not go together: a queue already spreads the work');
  // Workers run chunks with their own settings: flags that would not reach them are refused, not dropped.
  if (target && rounds !== undefined) throw new RangeError('--rounds does not go with --queue: workers run the default rounds');
  if (target && (threads !== undefined || opts.backend !== 'auto')) throw new RangeError('--threads and --backend do not go with --queue: give them to each powprime worker');
  if (opts.json && opts.out === undefined) throw new RangeError('--json goes with --out: without it the moduli lines are the output');
  return { sizes, count, threads, backend, rounds, seed, shard, target };
}
