/**
 * How deep the sieve of a queue worker's chunk goes (sieve-depth.ts has the
 * local runs' model). A chunk is a range of one index's candidates; the
 * coordinator hands a worker chunks of many indexes, so a chunk's sieve
 * usually serves that chunk alone, and a worker that sees its chunks keep to
 * one index asks for a sieve serving more candidates (index-search.ts).
 */
import type { Backend } from '../backend.ts';
import { deepSieveBytes, farBlockMs, forcedSieveLimit, scratchRootsMs, SIEVE_LIMIT_MAX, sieveLimit, testCostMs, thisMachine, type SieveMachine } from './sieve-depth.ts';

/**
 * Share of candidates (p ≡ 11 mod 12) that no prime 5 ≤ r < B strikes from
 * p or q, times ln²B: ∏(1 − 2/r) over those r is about 3·4·C2·e^(−2γ)/ln²B
 * (Mertens' theorem for the twin-prime sieve, C2 the twin-prime constant).
 * It is a chunk's Fermat tests a candidate: 0.0054 at 2^31, as measured at
 * 4096 bits.
 */
const SURVIVORS_LN2 = 12 * 0.6601618 * Math.exp(-2 * 0.5772157);

/** Model core milliseconds of one queue chunk of `candidates` candidates at depth B, its sieve made for it (roots from scratch, one far slot). */
function chunkCostMs(bits: number, limit: number, candidates: number): number {
  const tests = (candidates * SURVIVORS_LN2) / Math.log(limit) ** 2;
  return tests * testCostMs(bits) + scratchRootsMs(bits, limit) + farBlockMs(bits, limit, 1);
}

/**
 * The depth for a queue worker's chunk: its sieve serves that chunk alone
 * (the coordinator hands a worker chunks of many indexes, so the next is
 * seldom of the same one), and the roots it computes from scratch are set
 * against the tests they save in the chunk; the prime table, built once a
 * worker, is left out. At 4096 bits (32,768 candidates a chunk, Zen 5, one
 * thread, a new index each chunk, medians of five): 425 ms a chunk at 2^24,
 * 393 at 2^26, 379 at 2^28, 783 at 2^31 (an endless local run's depth then; now 2^32).
 */
export function chunkSieveLimit(bits: number, backend: Backend, candidates: number, machine: SieveMachine = thisMachine()): number {
  const local = sieveLimit(bits, backend, { machine });
  // The TS backend, a forced depth (POWPRIME_SIEVE_LIMIT) and sizes whose depth is below 2^28 (a cheap setup) keep the local depth.
  if (backend === 'js' || forcedSieveLimit() !== null || local < 2 ** 28) return local;
  let best = 2 ** 20;
  for (let b = 2 ** 21; b <= Math.min(SIEVE_LIMIT_MAX, 2 ** (bits - 3)); b *= 2) {
    if (deepSieveBytes(b, machine.threads) > machine.totalBytes / 8) break;
    if (chunkCostMs(bits, b, candidates) < chunkCostMs(bits, best, candidates)) best = b;
  }
  return best;
}
