import type { PowBackend } from '../backend.ts';
import { BackendUnavailableError } from '../errors.ts';
import { native, nativeLoadError } from '../native.ts';
import { searchRangeJs } from './kernel.ts';
import type { PowTarget } from './target.ts';
import { searchRangeWasm } from './wasm-kernel.ts';

/** Candidates per chunk: bounded work (a few ms), and a divisor of 10^12 so no chunk crosses a window. */
export const CHUNK_SIZE: Record<PowBackend, bigint> = { native: 200_000n, wasm: 50_000n, js: 20_000n };

/** Lowest k in [kStart, kEnd) meeting the difficulty, or null; the range stays inside one window. */
export function searchRange(target: PowTarget, backend: PowBackend, kStart: bigint, kEnd: bigint): bigint | null {
  if (backend === 'js') return searchRangeJs(target, kStart, kEnd);
  if (backend === 'wasm') return searchRangeWasm(target, kStart, kEnd);
  const n = native();
  if (!n) throw new BackendUnavailableError('native', `not loaded in this worker thread: ${nativeLoadError()}`);
  const w = target.window(kStart);
  const { digitsEnd, digitsInBlock } = target.layout;
  return n.powSearch(w.mid, w.block, digitsEnd, digitsInBlock, target.difficulty, kStart, kEnd);
}
