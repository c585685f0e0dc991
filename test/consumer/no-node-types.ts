// A TypeScript user with no Node types at all (a browser or Deno project,
// `"types": []`, the DOM lib for AbortSignal): the PoW and prime API of the
// main entry must compile from the published declarations alone.
import { backendInfo, findSafePrime, isSafePrime, isSafePrimeSync, PowprimeError, searchSafePrimes, solvePow, verifyPow, type PowSolution } from 'powprime';

export async function use(signal: AbortSignal): Promise<string> {
  const s: PowSolution = await solvePow({ nonce: 'ts', difficulty: 2 }, { threads: 1, signal });
  const ok: boolean = verifyPow('ts', 2, s.solution);
  const p: bigint = await findSafePrime({ bits: 64, seed: 42n });
  for await (const r of searchSafePrimes({ bits: 64, count: 1, seed: 1n })) void r.index;
  try {
    return `${backendInfo().backend} ${ok} ${await isSafePrime(p)} ${isSafePrimeSync('0x17')}`;
  } catch (e) {
    return e instanceof PowprimeError ? e.code : 'other';
  }
}
