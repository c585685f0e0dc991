/**
 * Where a safe prime's core time goes, on one thread, beside OpenSSL's
 * 2048-bit Miller–Rabin round measured in the same run:
 *
 *   node --import tsx bench/safe-prime-profile.ts [bits=2048] [count=32] [seed=1] [depth] [stream=2]
 *
 * depth (a number, or 2^k written as 26 for k ≤ 32) forces the native sieve's
 * depth through POWPRIME_SIEVE_LIMIT (sieve-depth.ts), for the cost model there.
 * stream (1 or 2, src/prime/stream.ts) is searchSafePrimes' option: on 2 each
 * index's deep roots are derived from the previous index's on the thread.
 *
 * Prints Fermat tests a prime (measured and the sieve's expectation), core
 * time a prime and its ratio to the MR round, and the part of that time the
 * batched Fermat tests take (tests × the batched cost a test, timed alone
 * on random odd numbers of the size, in wall time: this thread is the only
 * one working then) beside the full test on q; the rest is the sieve (its
 * one-time table and roots, far blocks, striking) and the search's bookkeeping.
 */
import { checkPrimeSync, randomBytes } from 'node:crypto';
import { MIN_SEARCH_BITS } from '../src/limits.ts';
import { native } from '../src/native.ts';
import { closePool } from '../src/pool/pool.ts';
import { fromBytes } from '../src/prime/bigint.ts';
import { searchSafePrimes } from '../src/prime/search.ts';
import { sieveLimit } from '../src/prime/sieve-depth.ts';
import { expectedTestsPerPrime } from '../src/prime/expectation.ts';

/** RFC 3526 group 14: the 2048-bit MODP prime (a safe prime). */
const RFC3526_2048 = BigInt(
  '0xFFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF',
);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/** Core milliseconds the process spent since `from` (all threads): the machine may be shared, so wall time would count others' work. */
function coreMs(from: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
}

/** Milliseconds of fn, the median of `runs` after a warm-up, on `clock`: core time by default (the machine may be shared). */
function msOf(fn: () => unknown, runs: number, clock: 'core' | 'wall' = 'core'): number {
  fn();
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c = process.cpuUsage();
    const w = performance.now();
    fn();
    xs.push(clock === 'core' ? coreMs(c) : performance.now() - w);
  }
  return median(xs);
}

const depthArg = process.argv[5];
if (depthArg !== undefined) {
  const d = Number(depthArg);
  process.env.POWPRIME_SIEVE_LIMIT = String(d <= 32 ? 2 ** d : d);
}
const bits = Number(process.argv[2] ?? 2048);
const count = Number(process.argv[3] ?? 32);
const seed = BigInt(process.argv[4] ?? 1);
const n = native();
if (!n) throw new Error('the native addon is not loaded');
// The depth searchSafePrimes picks for `count` indexes on one thread (sieve-depth.ts).
const limit = sieveLimit(bits, 'native', { indexesAhead: count });

const mrRound = msOf(() => checkPrimeSync(RFC3526_2048, { checks: 64 }), 5) / 64;

// Start the pool's thread (and load its modules) before the clock starts: at
// the least size, whose depth stays below the deep tier's tables even when
// forced, so a forced depth's table is built inside the clock as in a real run.
for await (const _ of searchSafePrimes({ bits: MIN_SEARCH_BITS, count: 1, seed, threads: 1, backend: 'native' }));
const streamArg = Number(process.argv[6] ?? 2);
if (streamArg !== 1 && streamArg !== 2) throw new Error('stream must be 1 or 2');
const t0 = process.cpuUsage();
let tested = 0;
let found = 0;
for await (const _ of searchSafePrimes({ bits, count, seed, threads: 1, backend: 'native', stream: streamArg, onProgress: (p) => (tested = p.tested) })) found++;
const searchMs = coreMs(t0);
const mrRoundAfter = msOf(() => checkPrimeSync(RFC3526_2048, { checks: 64 }), 5) / 64;
const mr = (mrRound + mrRoundAfter) / 2;

// Unit costs, timed alone, in wall time (this thread is the only one working).
const odd = (): bigint => fromBytes(randomBytes(bits / 8)) | 1n | (1n << BigInt(bits - 1));
const batch = Array.from({ length: 64 }, odd);
const fermatMs = msOf(() => n.fermatBase2(batch), 5, 'wall') / batch.length;
const fullTestMs = msOf(() => n.isProbablePrime(RFC3526_2048 >> 1n, undefined, false), 3, 'wall') * (bits / 2048) ** 3;

const perPrime = searchMs / found;
const fermat = (fermatMs * tested) / found;
const rest = perPrime - fermat - fullTestMs;
const pct = (x: number): string => `${((100 * x) / perPrime).toFixed(1)} %`;
console.log(`safe primes: ${bits} bits, seed ${seed}, ${found} primes, 1 thread, sieve to ${limit}, stream ${streamArg}`);
console.log(`  Fermat tests a prime: ${(tested / found).toFixed(0)} (expected for this sieve ${expectedTestsPerPrime(bits, limit).toFixed(0)})`);
console.log(`  core time a prime:    ${perPrime.toFixed(1)} ms = ${(perPrime / mr).toFixed(0)} × OpenSSL's 2048-bit MR round (${mr.toFixed(3)} ms)`);
console.log(`  split a prime: Fermat tests on q ${fermat.toFixed(1)} ms (${pct(fermat)}, ${fermatMs.toFixed(3)} ms a test), full test on q ${fullTestMs.toFixed(1)} ms (${pct(fullTestMs)}),`);
console.log(`                 the rest (tests on p, the sieve, bookkeeping) ${rest.toFixed(1)} ms (${pct(rest)})`);
await closePool();
