/**
 * What a queue worker's chunk costs, on one thread, as `powprime worker` runs
 * it (searchSafePrimeRange over one chunk of the default length):
 *
 *   node --import tsx bench/queue-chunk-profile.ts [bits=4096] [mode=switch] [chunks=12] [seed=11]
 *
 * mode `switch`: chunk 0 of indexes 0, 1, 2, … (what a worker meets while many
 * indexes are open: each chunk's sieve is made for it); `same`: chunks 0, 1,
 * 2, … of index 0 (one index open, e.g. a single large prime: the sieve is
 * kept and deepened). POWPRIME_SIEVE_LIMIT=B forces the depth, to set the
 * model in chunk-depth.ts against measured times. Prints the
 * total (the prime table's one-time build included), the median chunk after
 * the first, and Fermat tests a chunk.
 */
import { searchSafePrimeRange } from '../src/prime/range-search.ts';
import { chunkLength } from '../src/prime/tuning.ts';
import { closePool } from '../src/pool/pool.ts';

async function main(): Promise<void> {
  const bits = Number(process.argv[2] ?? 4096);
  const mode = process.argv[3] ?? 'switch';
  const chunks = Number(process.argv[4] ?? 12);
  const seed = BigInt(process.argv[5] ?? 11);
  if (mode !== 'switch' && mode !== 'same') throw new RangeError(`mode must be switch or same (got ${mode})`);
  const length = BigInt(chunkLength(bits));
  const times: number[] = [];
  let tests = 0;
  const started = performance.now();
  for (let i = 0; i < chunks; i++) {
    const [index, chunk] = mode === 'switch' ? [i, 0] : [0, i];
    const t = performance.now();
    const r = await searchSafePrimeRange({ bits, seed, index: BigInt(index), from: BigInt(chunk) * length, to: BigInt(chunk + 1) * length, stream: 2, threads: 1 });
    if (i > 0) times.push(performance.now() - t);
    tests += r.tested;
  }
  const total = performance.now() - started;
  times.sort((a, b) => a - b);
  const median = times.length ? times[times.length >> 1]!.toFixed(0) : '-';
  const depth = process.env.POWPRIME_SIEVE_LIMIT ?? 'the model';
  console.log(`${bits} bits, ${mode}, ${chunks} chunks of ${length}, depth ${depth}: ${total.toFixed(0)} ms in all, median chunk ${median} ms, ${(tests / chunks).toFixed(0)} Fermat tests a chunk`);
  await closePool();
}

main();
