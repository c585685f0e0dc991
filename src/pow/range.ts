import type { Backend } from '../backend.ts';
import { BackendUnavailableError } from '../errors.ts';
import { native, nativeLoadError } from '../native.ts';
import { searchRangeJs } from './kernel.ts';
import type { PowTarget } from './target.ts';

/** Candidates per chunk: bounded work (a few ms), and a divisor of 10^12 so no chunk crosses a window. */
export const CHUNK_SIZE: Record<Backend, bigint> = { native: 200_000n, js: 20_000n };

/** Lowest k in [kStart, kEnd) meeting the difficulty, or null; the range stays inside one window. */
export function searchRange(target: PowTarget, backend: Backend, kStart: bigint, kEnd: bigint): bigint | null {
  if (backend === 'js') return searchRangeJs(target, kStart, kEnd);
  const n = native();
  if (!n) throw new BackendUnavailableError('native', `not loaded in this worker thread: ${nativeLoadError()}`);
  const w = target.window(kStart);
  const { digitsEnd, digitsInBlock } = target.layout;
  return n.powSearch(w.mid, w.block, digitsEnd, digitsInBlock, target.difficulty, kStart, kEnd);
}
