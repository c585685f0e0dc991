/**
 * The options of a seeded safe-prime search, checked here once for every
 * entry point (the API's calls, the queue's chunks, the CLI's flags): each
 * option's rule is written once, so they refuse alike with the same words.
 */
import { BACKEND_CHOICES, resolveBackend, type Backend, type BackendChoice } from '../backend.ts';
import { poolSize } from '../pool/pool.ts';
import { INDEX_LIMIT, MAX_SEARCH_BITS, MIN_SEARCH_BITS } from '../limits.ts';
import { KEEPS, type Keep } from './sieve.ts';
import { argumentError, checkCount, checkFunction, checkInteger, checkOneOf, checkRounds, checkSignal, checkThreads, parseBigInt, showNumber } from '../validate.ts';
import { optionNames } from '../option-checks.ts';
import { parseSeed, randomSeed } from './seed.ts';
import type { RangeSearchOptions } from './range-search.ts';
import type { SliceOptions } from './slice-search.ts';
import { LATEST_STREAM, type StreamVersion } from './stream.ts';

// The seed's rule lives in seed.ts, beside the drawing of a seed; search callers take it from here with the rest.
export { parseSeed };

export interface SafePrimeProgress {
  /** Primes found so far in this call (a last report with the final counts comes once all are found). */
  found: number;
  /** Candidates sieved and candidates that reached a Fermat test, so far. */
  sieved: number;
  tested: number;
  elapsedMs: number;
}

export interface SafePrimeSearchOptions {
  bits: number;
  /** 0 ≤ seed < 2^256, as a bigint or decimal / 0x string; drawn at random (and reported) when absent. */
  seed?: bigint | string;
  threads?: number;
  backend?: BackendChoice;
  /** Miller–Rabin rounds on q after Baillie–PSW (default by size). */
  rounds?: number;
  /** Which start rule maps indexes to primes (src/prime/stream.ts): 1 or 2, default 2. Files and jobs record it. */
  stream?: StreamVersion;
  signal?: AbortSignal;
  onProgress?: (p: SafePrimeProgress) => void;
}

/** Every option of a seeded search; each entry point adds its own (search.ts) and refuses any other key. */
export const SEARCH_OPTIONS = optionNames<SafePrimeSearchOptions>()(['bits', 'seed', 'threads', 'backend', 'rounds', 'stream', 'signal', 'onProgress']);

export interface Parsed {
  bits: number;
  seed: bigint;
  threads: number;
  backend: Backend;
  rounds: number;
  stream: StreamVersion;
  signal: AbortSignal | undefined;
  onProgress: ((p: SafePrimeProgress) => void) | undefined;
  /** The class of candidates that counts: p ≡ 23 (mod 24) for DH parameters (dhparam.ts), an ssh-keygen generator for moduli. */
  keep: Keep;
}

/** A search's bit length: the search's range, or a narrower one (DH parameters take no small sizes). */
export function parseBits(name: string, value: unknown, min = MIN_SEARCH_BITS, max = MAX_SEARCH_BITS): number {
  return checkInteger(name, value, min, max);
}

/** A backend choice, resolved to the backend that runs it. */
function parseBackend(value: unknown): Backend {
  return resolveBackend(checkOneOf('backend', value ?? 'auto', BACKEND_CHOICES));
}

/** A stream version this build knows: a queue job of another would search the wrong candidates. */
export function knownStream(value: unknown): value is StreamVersion {
  return value === 1 || value === 2;
}

/** A class of primes this build knows how to keep (a queue job may come from a newer one). */
export function knownKeep(value: unknown): value is Keep {
  return (KEEPS as readonly unknown[]).includes(value);
}

/** A stream version as the API takes it: 1 or 2, LATEST_STREAM when absent. */
export function parseStream(name: string, value: unknown): StreamVersion {
  if (value === undefined) return LATEST_STREAM;
  if (!knownStream(value)) throw argumentError(RangeError, name, `must be 1 or 2 (got ${String(value)})`);
  return value;
}

/** A prime's index in a seeded search: 0 ≤ index < 2^64. */
export function parseIndex(name: string, value: unknown): bigint {
  const index = parseBigInt(name, value);
  if (index < 0n || index >= INDEX_LIMIT) throw argumentError(RangeError, name, `must be from 0 to 2^64 - 1 (got ${showNumber(index)})`);
  return index;
}

export function parseOptions(opts: SafePrimeSearchOptions, keep: Keep = 'all'): Parsed {
  if (opts === null || typeof opts !== 'object') throw argumentError(TypeError, 'options', 'must be an object with at least {bits}');
  const bits = parseBits('bits', opts.bits);
  const seed = opts.seed === undefined ? randomSeed() : parseSeed('seed', opts.seed);
  return {
    bits,
    seed,
    threads: opts.threads === undefined ? poolSize() : checkThreads('threads', opts.threads),
    backend: parseBackend(opts.backend),
    rounds: checkRounds('rounds', opts.rounds),
    stream: parseStream('stream', opts.stream),
    signal: checkSignal('signal', opts.signal),
    onProgress: checkFunction<(p: SafePrimeProgress) => void>('onProgress', opts.onProgress),
    keep,
  };
}

/** Which primes of a search to yield: `count` of them, from startIndex by stride. */
export interface SearchSpan {
  count: bigint;
  startIndex: bigint;
  stride: bigint;
}

export function parseSpan(opts: { count: number | bigint; startIndex?: number | bigint; stride?: number | bigint }): SearchSpan {
  const count = checkCount('count', opts.count);
  const startIndex = opts.startIndex === undefined ? 0n : parseIndex('startIndex', opts.startIndex);
  const stride = opts.stride === undefined ? 1n : parseBigInt('stride', opts.stride);
  if (stride < 1n || stride >= INDEX_LIMIT) throw argumentError(RangeError, 'stride', `must be from 1 to 2^64 - 1 (got ${showNumber(stride)})`);
  if (startIndex + (count - 1n) * stride >= INDEX_LIMIT) {
    throw new RangeError(`the last index, startIndex + (count - 1) * stride, must be below 2^64 (got ${showNumber(startIndex)} + ${showNumber(count - 1n)} * ${showNumber(stride)})`);
  }
  return { count, startIndex, stride };
}

/** searchSafePrimeRange's options (their keys checked by the caller): the search, and offsets [from, to) of one index. */
export function parseRangeOptions(opts: RangeSearchOptions): { p: Parsed; index: bigint; from: bigint; to: bigint } {
  const { keep, ...search } = opts;
  const p = parseOptions(search, checkOneOf('keep', keep ?? 'all', KEEPS));
  const index = parseIndex('index', opts.index);
  const from = parseBigInt('from', opts.from);
  const to = parseBigInt('to', opts.to);
  if (from < 0n) throw argumentError(RangeError, 'from', `must not be negative (got ${showNumber(from)})`);
  if (to < from) throw argumentError(RangeError, 'to', `must not be below from (got ${showNumber(from)}..${showNumber(to)})`);
  return { p, index, from, to };
}

/** searchSafePrimeSlice's options (their keys checked by the caller): no threads, signal or progress, as it runs on the calling thread. */
export function parseSliceOptions(opts: SliceOptions): { bits: number; seed: bigint; index: bigint; slice: bigint; backend: Backend; rounds: number; stream: StreamVersion } {
  const bits = parseBits('bits', opts.bits);
  const seed = parseSeed('seed', opts.seed);
  const index = parseIndex('index', opts.index);
  const slice = parseBigInt('slice', opts.slice);
  if (slice < 0n) throw argumentError(RangeError, 'slice', `must not be negative (got ${showNumber(slice)})`);
  return { bits, seed, index, slice, backend: parseBackend(opts.backend), rounds: checkRounds('rounds', opts.rounds), stream: parseStream('stream', opts.stream) };
}
