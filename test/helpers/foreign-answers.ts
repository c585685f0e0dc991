/**
 * What an addon built for another platform (arm64 under qemu, win32 under
 * Wine) must answer on the shared inputs of test/arm64/inputs.mjs, computed
 * here on the TypeScript backend and this machine's x64 search: one source
 * for every cross-platform suite.
 */
import { isProbablePrimeSync, isSafePrimeSync, searchSafePrimes, solvePow } from '../../src/index.ts';
import { nonces, numbers, SEARCH } from '../arm64/inputs.mjs';

/** The TS backend's PoW solution for each nonce (every length mod 64), difficulty 2. */
export async function tsPowAnswers(): Promise<string[]> {
  const want: string[] = [];
  for (const nonce of nonces()) want.push((await solvePow({ nonce, difficulty: 2 }, { backend: 'js', threads: 1 })).solution);
  return want;
}

/** The TS backend's [isProbablePrime, isSafePrime] for each number. */
export function tsVerdicts(): [boolean, boolean][] {
  return numbers().map((n) => [isProbablePrimeSync(n, { backend: 'js' }), isSafePrimeSync(n, { backend: 'js' })]);
}

/** The primes of the seeded search as this machine finds them. */
export async function x64Primes(): Promise<string[]> {
  const want: string[] = [];
  for await (const r of searchSafePrimes(SEARCH)) want.push(r.prime.toString());
  return want;
}
