/**
 * Base-2 Fermat tests of many numbers at once on a pool thread: the cheap way
 * to drop the composites among many unsieved-further candidates (a moduli
 * file's type-4 lines) before the full check. A number that fails is
 * composite; one that passes is only worth the full check. The native kernel
 * runs a batch in its vector lanes (fermat_base2_many, as the sieve's own
 * tests run); the TS backend tests one number at a time.
 */
import type { Backend } from '../backend.ts';
import { NATIVE_MAX_BITS } from '../limits.ts';
import { native } from '../native.ts';
import { runTask } from '../pool/pool.ts';
import { bitLength } from './bigint.ts';
import { fermatBase2 } from './primality.ts';

/** Numbers a task: the lanes of the widest kernel group (sixteen), and short enough at 8192 bits (about a second) that an interrupt is soon heard. */
export const FERMAT_BATCH = 16;

export interface FermatBatchTask {
  kind: 'fermat2';
  /** Odd numbers from 3, at most FERMAT_BATCH. */
  n: bigint[];
  backend: Backend;
}

const WORKER = new URL('../worker.ts', import.meta.url);

/** 2^(n−1) ≡ 1 (mod n) for each n, on the calling thread. */
export function runFermatBatch(t: Omit<FermatBatchTask, 'kind'>): boolean[] {
  const addon = t.backend === 'native' ? native() : null;
  if (addon && t.n.every((x) => bitLength(x) <= NATIVE_MAX_BITS)) return addon.fermatBase2(t.n);
  return t.n.map(fermatBase2);
}

/** runFermatBatch on a pool thread. */
export async function fermatBase2Batch(n: bigint[], backend: Backend): Promise<boolean[]> {
  const task: FermatBatchTask = { kind: 'fermat2', n, backend };
  return runTask<boolean[]>(WORKER, task);
}
