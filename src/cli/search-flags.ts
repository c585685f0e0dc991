/**
 * The flags of `powprime search`, checked together before any work: each
 * value, and which flags go with which (--shard, --queue, --register).
 */
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { MAX_CHUNK_LENGTH } from '../limits.ts';
import { parseBits, parseSeed, parseStream } from '../prime/search-options.ts';
import type { StreamVersion } from '../prime/stream.ts';
import { DEFAULT_QUEUE_NAME, parseQueueTarget, type QueueTarget } from '../queue/connection.ts';
import { checkCount, checkInteger, checkOneOf, checkThreads } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { parseShard, shardSize, type Shard } from './shard.ts';

export interface SearchOpts {
  bits?: string;
  count: string;
  seed?: string;
  threads?: string;
  backend: string;
  out?: string;
  json?: boolean;
  hex?: boolean;
  format?: string;
  register?: boolean;
  baseUrl?: string;
  stateDir?: string;
  keystore?: string;
  maxWait?: string;
  limits?: boolean;
  shard?: string;
  shardCount?: string;
  queue?: string;
  queueName: string;
  chunkLength?: string;
  registerRate?: string;
  stream?: string;
}

/** How primes are printed on stdout (without --out). */
export const SEARCH_FORMATS = ['json', 'number', 'hex'] as const;
export type SearchFormat = (typeof SEARCH_FORMATS)[number];

export interface SearchFlags {
  /** --bits when given (resume may take it from the --out file instead). */
  bits: number | undefined;
  format: SearchFormat;
  count: number;
  threads: number | undefined;
  backend: BackendChoice;
  /** --seed when given (resume may take it from the --out file instead). */
  seed: bigint | undefined;
  /** --stream when given (resume takes the --out file's otherwise). */
  stream: StreamVersion | undefined;
  shard: Shard | null;
  target: QueueTarget | null;
  registerRate: { max: number; ms: number } | null;
  chunkLength: bigint | undefined;
  /** This process runs indexes base, base+stride, …: `wanted` of them. */
  base: number;
  stride: number;
  wanted: number;
}

export function parseSearchFlags(opts: SearchOpts): SearchFlags {
  // The search's own checks, run before --out is opened or a service called.
  if (opts.bits === undefined && opts.out === undefined) throw new RangeError('--bits is required (or an --out file whose primes give it)');
  const bits = opts.bits === undefined ? undefined : parseBits('--bits', parseIntArg('--bits', opts.bits));
  const format = checkOneOf<SearchFormat>('--format', opts.format ?? 'json', SEARCH_FORMATS);
  const count = Number(checkCount('--count', parseIntArg('--count', opts.count)));
  const threads = opts.threads === undefined ? undefined : checkThreads('--threads', parseIntArg('--threads', opts.threads));
  const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
  const seed = opts.seed === undefined ? undefined : parseSeed('--seed', opts.seed);
  const stream = opts.stream === undefined ? undefined : parseStream('--stream', parseIntArg('--stream', opts.stream));
  const shard = opts.shard === undefined ? null : parseShard(opts.shard, opts.shardCount);
  if (opts.shardCount !== undefined && opts.shard !== 'auto') throw new RangeError('--shard-count goes with --shard auto');
  if (shard && opts.queue !== undefined) throw new RangeError('--shard and --queue do not go together: a queue already spreads the work');
  // A flag of the registration or the queue given without it would be dropped without a word; the user
  // most likely forgot --register or --queue, and would find nothing registered or no queue used.
  const registration = { '--base-url': opts.baseUrl, '--state-dir': opts.stateDir, '--keystore': opts.keystore, '--max-wait': opts.maxWait, '--no-limits': opts.limits === false ? true : undefined };
  for (const [flag, value] of Object.entries(registration)) if (value !== undefined && !opts.register) throw new RangeError(`${flag} goes with --register`);
  if (opts.queueName !== DEFAULT_QUEUE_NAME && opts.queue === undefined) throw new RangeError('--queue-name goes with --queue');
  const target = opts.queue !== undefined ? parseQueueTarget(opts.queue, opts.queueName) : null;
  if (opts.chunkLength !== undefined && !target) throw new RangeError('--chunk-length goes with --queue');
  // Workers run chunks with their own settings: flags that would not reach them are refused, not dropped.
  if (target && (threads !== undefined || opts.backend !== 'auto')) throw new RangeError('--threads and --backend do not go with --queue: give them to each powprime worker');
  if (opts.registerRate !== undefined && !(target && opts.register)) throw new RangeError('--register-rate goes with --queue and --register');
  // --json asks for the summary of an --out file; without one each prime is a JSON line already, which
  // is what --json asks for. --hex is how primes are printed, which they are not with --out.
  if (opts.hex && opts.out !== undefined) throw new RangeError('--hex does not go with --out: the file keeps primes in decimal, for resume and merge');
  if (opts.format !== undefined && opts.out !== undefined) throw new RangeError('--format does not go with --out: the file keeps JSON lines, for resume and merge');
  if (opts.hex && format !== 'json') throw new RangeError(`--hex goes with JSON lines; --format ${format} prints the bare prime`);
  if (opts.json && format !== 'json') throw new RangeError(`--json goes with JSON lines or --out; --format ${format} prints the bare prime`);
  const registerRate = opts.registerRate === undefined ? null : parseRate('--register-rate', opts.registerRate);
  const chunkLength = opts.chunkLength === undefined ? undefined : BigInt(checkInteger('--chunk-length', parseIntArg('--chunk-length', opts.chunkLength), 1, MAX_CHUNK_LENGTH));
  // This process runs indexes base, base+stride, …: all of them, or one shard's.
  const base = shard?.k ?? 0;
  const stride = shard?.n ?? 1;
  const wanted = shard ? shardSize(shard, count) : count;
  return { bits, format, count, threads, backend, seed, stream, shard, target, registerRate, chunkLength, base, stride, wanted };
}

/** `n/seconds`, e.g. 10/60. */
function parseRate(name: string, text: string): { max: number; ms: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new RangeError(`${name} must be n/seconds with both at least 1, e.g. 10/60 (got ${JSON.stringify(text)})`);
  return { max: Number(m[1]), ms: Number(m[2]) * 1000 };
}
