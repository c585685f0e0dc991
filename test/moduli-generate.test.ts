// The moduli search (safe primes with an ssh-keygen generator) against an
// outside oracle: prime i is the least safe prime p ≢ 119 (mod 120) at or
// after index i's start, walking the stream's candidates with node:crypto's
// checkPrimeSync; native and TS agree; the plain search relates as it must.
import { checkPrimeSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateModuli } from '../src/moduli/generate.ts';
import { searchModuliPrimes, searchSafePrimes } from '../src/prime/search.ts';
import { candidateAt, stream } from '../src/prime/stream.ts';
import { backends } from './helpers/backends.ts';

const BITS = 160;
const SEED = 5n;
const COUNT = 6;

async function moduliPrimes(backend: 'native' | 'js'): Promise<bigint[]> {
  const out: bigint[] = [];
  for await (const r of searchModuliPrimes({ bits: BITS, count: COUNT, seed: SEED, backend, threads: 2 })) out.push(r.prime);
  return out;
}

/** The oracle: walk index i's candidates (p ≡ 11 mod 12, upward from its start) to the first safe prime with a generator. */
function firstWithGenerator(index: number): bigint {
  const st = stream(BITS, SEED, BigInt(index), 2);
  for (let pos = st.first; pos < st.count; pos++) {
    const p = candidateAt(st, pos);
    const generator = p % 24n === 11n || p % 10n === 3n || p % 10n === 7n;
    if (generator && checkPrimeSync(p >> 1n) && checkPrimeSync(p)) return p;
  }
  throw new Error('no prime before the range ends');
}

describe('moduli primes', () => {
  it.each(backends)('%s: prime i is the least safe prime with an ssh-keygen generator from start i', async (backend) => {
    const found = await moduliPrimes(backend);
    expect(found).toEqual(Array.from({ length: COUNT }, (_, i) => firstWithGenerator(i)));
  });

  it('where the plain search meets a prime with a generator, the moduli search gives it too; else a later one', async () => {
    const plain: bigint[] = [];
    for await (const r of searchSafePrimes({ bits: BITS, count: 24, seed: SEED })) plain.push(r.prime);
    const moduli: bigint[] = [];
    for await (const r of searchModuliPrimes({ bits: BITS, count: 24, seed: SEED })) moduli.push(r.prime);
    let differ = 0;
    plain.forEach((p, i) => {
      if (p % 120n !== 119n) expect(moduli[i]).toBe(p);
      else {
        differ++;
        expect(moduli[i]! > p).toBe(true);
      }
    });
    // About one safe prime in six has no generator: 24 indexes without one would be a sieve striking nothing.
    expect(differ).toBeGreaterThan(0);
  });

  it('generateModuli takes the sizes sshd uses, naming the argument', async () => {
    await expect(generateModuli({ bits: 1024, count: 1 }).next()).rejects.toThrow(/^bits must be an integer from 2048 to 8192 \(got 1024\)$/);
    await expect(generateModuli({ bits: 2048, count: 1, stream: 1 } as never).next()).rejects.toThrow(TypeError);
  });
});
