/** isProbablePrime / isSafePrime: argument checks, backend choice, sync and pooled forms. */
import { BACKEND_CHOICES, resolveBackend, type Backend, type BackendChoice } from '../backend.ts';
import { native } from '../native.ts';
import { runTask } from '../pool/pool.ts';
import { MAX_CHECK_BITS, NATIVE_MAX_BITS } from '../limits.ts';
import { argumentError, checkOneOf, checkRounds, parseBigInt, showNumber } from '../validate.ts';
import { checkOptions, optionNames } from '../option-checks.ts';
import { bitLength } from './bigint.ts';
import { isProbablePrimeJs, isSafePrimeJs } from './primality.ts';

export interface PrimeCheckOptions {
  /** Miller–Rabin rounds after Baillie–PSW (default: by size, 2^-80 on random inputs; none below 2^64). */
  rounds?: number;
  backend?: BackendChoice;
}

/** Every option of the prime checks: any other key is refused. */
export const PRIME_CHECK_OPTIONS = optionNames<PrimeCheckOptions>()(['rounds', 'backend']);

const WORKER = new URL('../worker.ts', import.meta.url);

export interface CheckTask {
  kind: 'check';
  what: 'prime' | 'safe';
  n: bigint;
  rounds: number;
  backend: Backend;
}

interface Parsed {
  n: bigint;
  rounds: number;
  backend: Backend;
}

function parse(where: string, name: string, value: unknown, options: PrimeCheckOptions | undefined): Parsed {
  const opts: PrimeCheckOptions = checkOptions('options', options, where, PRIME_CHECK_OPTIONS);
  const n = parseBigInt(name, value);
  if (n < 0n) throw argumentError(RangeError, name, `must not be negative (got ${showNumber(n)})`);
  if (bitLength(n) > MAX_CHECK_BITS) throw argumentError(RangeError, name, `has ${bitLength(n)} bits; at most ${MAX_CHECK_BITS} are accepted`);
  const rounds = checkRounds('rounds', opts.rounds);
  const backend = resolveBackend(checkOneOf('backend', opts.backend ?? 'auto', BACKEND_CHOICES));
  return { n, rounds, backend };
}

/** Runs one check on the calling thread. */
export function runCheck(t: Omit<CheckTask, 'kind'>): boolean {
  // Every non-negative integer has an answer; the smallest safe prime is 5.
  if (t.what === 'safe' && t.n < 5n) return false;
  // Only a native task loads the addon (in a pool thread too).
  const n = t.backend === 'native' ? native() : null;
  if (n && bitLength(t.n) <= NATIVE_MAX_BITS) {
    const rounds = t.rounds < 0 ? undefined : t.rounds;
    return t.what === 'prime' ? n.isProbablePrime(t.n, rounds) : n.isSafePrime(t.n, rounds);
  }
  return t.what === 'prime' ? isProbablePrimeJs(t.n, t.rounds) : isSafePrimeJs(t.n, t.rounds);
}

/** Trial division, Baillie–PSW and extra Miller–Rabin rounds; n is a bigint or a decimal / 0x string. */
export function isProbablePrimeSync(n: bigint | string, opts?: PrimeCheckOptions): boolean {
  return runCheck({ what: 'prime', ...parse('isProbablePrimeSync', 'n', n, opts) });
}

/** p ≡ 3 (mod 4) (or p = 5), q = (p−1)/2 probable prime, p proved prime from q by Pocklington; false below 5. */
export function isSafePrimeSync(p: bigint | string, opts?: PrimeCheckOptions): boolean {
  return runCheck({ what: 'safe', ...parse('isSafePrimeSync', 'p', p, opts) });
}

/** isProbablePrimeSync on a pool thread. */
export async function isProbablePrime(n: bigint | string, opts?: PrimeCheckOptions): Promise<boolean> {
  const task: CheckTask = { kind: 'check', what: 'prime', ...parse('isProbablePrime', 'n', n, opts) };
  return runTask<boolean>(WORKER, task);
}

/** isSafePrimeSync on a pool thread. */
export async function isSafePrime(p: bigint | string, opts?: PrimeCheckOptions): Promise<boolean> {
  const task: CheckTask = { kind: 'check', what: 'safe', ...parse('isSafePrime', 'p', p, opts) };
  return runTask<boolean>(WORKER, task);
}
