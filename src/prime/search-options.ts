/** The options of a seeded safe-prime search, checked once for every entry point. */
import { BACKEND_CHOICES, resolveBackend, type Backend, type BackendChoice } from '../backend.ts';
import { poolSize } from '../pool/pool.ts';
import { INDEX_LIMIT, MAX_SEARCH_BITS, MIN_SEARCH_BITS } from '../limits.ts';
import type { Keep } from './sieve.ts';
import { argumentError, checkFunction, checkInteger, checkOneOf, checkRounds, checkSignal, checkThreads, optionNames, parseBigInt } from '../validate.ts';
import { parseSeed, randomSeed } from './seed.ts';
import { LATEST_STREAM, type StreamVersion } from './stream.ts';

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

/** A stream version as the API takes it: 1 or 2, LATEST_STREAM when absent. */
export function parseStream(name: string, value: unknown): StreamVersion {
  if (value === undefined) return LATEST_STREAM;
  if (value !== 1 && value !== 2) throw argumentError(RangeError, name, `must be 1 or 2 (got ${String(value)})`);
  return value;
}

/** A prime's index in a seeded search: 0 ≤ index < 2^64. */
export function parseIndex(name: string, value: unknown): bigint {
  const index = parseBigInt(name, value);
  if (index < 0n || index >= INDEX_LIMIT) throw argumentError(RangeError, name, `must be from 0 to 2^64 - 1 (got ${index})`);
  return index;
}

export function parseOptions(opts: SafePrimeSearchOptions, keep: Keep = 'all'): Parsed {
  if (opts === null || typeof opts !== 'object') throw new TypeError('options must be an object with at least {bits}');
  const bits = checkInteger('bits', opts.bits, MIN_SEARCH_BITS, MAX_SEARCH_BITS);
  const seed = opts.seed === undefined ? randomSeed() : parseSeed('seed', opts.seed);
  return {
    bits,
    seed,
    threads: opts.threads === undefined ? poolSize() : checkThreads('threads', opts.threads),
    backend: resolveBackend(checkOneOf('backend', opts.backend ?? 'auto', BACKEND_CHOICES)),
    rounds: checkRounds('rounds', opts.rounds),
    stream: parseStream('stream', opts.stream),
    signal: checkSignal('signal', opts.signal),
    onProgress: checkFunction<(p: SafePrimeProgress) => void>('onProgress', opts.onProgress),
    keep,
  };
}
