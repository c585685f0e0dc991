// The library half of the endurance check (soak.mjs starts it as its
// own process, so the process sampled is the one doing the work): one
// workload per run, named by the first argument, against the built library
// in dist/. It prints one JSON line when done: what it did.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closePool, isSafePrime, searchSafePrimes, solvePow } from '../../dist/src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const workloads = {
  // 20,000 checks on the pool threads, 64 in flight: every fourth one a
  // published safe prime (the whole test runs), the others random odd
  // 512-bit numbers (mostly refused early): both paths of the call.
  async 'is-safe-prime'() {
    const { safe_primes: vectors } = JSON.parse(readFileSync(path.join(root, 'test/vectors/rfc-safe-primes.json'), 'utf8'));
    const known = BigInt(vectors['rfc2409-modp-768']);
    const random512 = () => {
      const bytes = crypto.getRandomValues(new Uint8Array(64));
      return BigInt(`0x${Buffer.from(bytes).toString('hex')}`) | (1n << 511n) | 1n;
    };
    const total = 20_000;
    let done = 0;
    for (let i = 0; i < total; i += 64) {
      const batch = Array.from({ length: Math.min(64, total - i) }, (_, k) => ((i + k) % 4 === 0 ? known : random512()));
      await Promise.all(batch.map((n) => isSafePrime(n)));
      done += batch.length;
    }
    return { checks: done };
  },

  // 800 proof-of-work solves, each followed by closePool(). At difficulty
  // 5 most solves outlast the first chunk, which runs on the calling thread,
  // and go to the pool: a fresh pool thread (which loads the addon) each
  // time, ended by closePool(). One thread per solve keeps the run short.
  async 'solve-pow-close-pool'() {
    // 800 pools: a leak of the size once seen (0.16 MB a pool) moves the
    // judged medians (first and last quarter after the warm-up) about 48 MB
    // apart, past the 32 MB bound; the smallest leak caught is about 0.11 MB a
    // pool (0.04 MB with 2,000, which took 3.5 minutes).
    const cycles = 800;
    let attempts = 0;
    for (let i = 0; i < cycles; i++) {
      attempts += (await solvePow({ nonce: `soak-${i}`, difficulty: 5 }, { threads: 1 })).attempts;
      await closePool();
    }
    return { cycles, attempts };
  },

  // 2,000 proof-of-work solves on one pool, as a long-lived service calls it:
  // the pool's threads are started once and reused.
  async 'solve-pow'() {
    const cycles = 2_000;
    let attempts = 0;
    for (let i = 0; i < cycles; i++) attempts += (await solvePow({ nonce: `soak-${i}`, difficulty: 5 }, { threads: 1 })).attempts;
    await closePool();
    return { cycles, attempts };
  },

  // The library's search for a fixed time (the first argument after the name, in seconds).
  async 'search-safe-primes'(seconds) {
    const until = Date.now() + Number(seconds) * 1000;
    let primes = 0;
    for await (const _ of searchSafePrimes({ bits: 512, count: 1_000_000, seed: 3n })) {
      primes++;
      if (Date.now() >= until) break;
    }
    return { primes };
  },
};

const [name, ...rest] = process.argv.slice(2);
const run = workloads[name];
if (!run) {
  process.stderr.write(`soak-library: unknown workload ${JSON.stringify(name)} (${Object.keys(workloads).join(', ')})\n`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(await run(...rest))}\n`);
