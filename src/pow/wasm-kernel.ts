/**
 * The WebAssembly SIMD128 PoW kernel (native/wasm/pow_simd128.c): the same
 * walk and answers as searchRangeJs, four candidates per vector. No Node
 * built-ins here: browsers' Web Workers load this file too.
 *
 * The module is compiled synchronously (allowed in Node and in Web Workers;
 * a browser's main thread refuses to compile more than 4 KB that way, and
 * then wasmLoadError says so), instantiated once per thread on first use, and
 * refused unless it finds two answers computed independently of this code.
 */
import { decodeBase64, instantiateWasm, loadOnce } from '../wasm-module.ts';
import { BackendUnavailableError } from '../errors.ts';
import { PowTarget } from './target.ts';
import { POW_WASM_BASE64 } from './wasm-bytes.ts';

export interface WasmKernel {
  /** Lowest k in [kStart, kEnd) meeting the target's difficulty, or null; the range lies inside one window. */
  search(target: PowTarget, kStart: bigint, kEnd: bigint): bigint | null;
}

interface Exports {
  memory: { buffer: ArrayBuffer };
  pow_io(): number;
  pow_search(digitsEnd: number, digitsInBlock: number, difficulty: number, kStart: bigint, kEnd: bigint): bigint;
}

/** pow_search's "none": 2^64 - 1 as an unsigned i64 (counters stop below 10^19). */
const NOT_FOUND = (1n << 64n) - 1n;

/**
 * Known answers, found with python3 hashlib by brute force over S_k = k
 * zero-padded to the layout's width (32 for both nonces):
 *   next(k for k in count() if sha256((nonce + str(k).zfill(32)).encode()).hexdigest().startswith('0' * d))
 * The first has groups of 10^3 and a one-block message; the second groups of
 * 10^4, a two-block message and an answer one group past where its search
 * starts (cheaper at load than searching from 0).
 */
const SELF_TESTS: readonly { nonce: string; difficulty: number; from: bigint; counter: bigint }[] = [
  { nonce: 'powprime wasm self-test', difficulty: 3, from: 0n, counter: 1940n },
  { nonce: 'powprime wasm self-test: four-digit groups..', difficulty: 4, from: 49_000n, counter: 58216n },
];

/** Compiles and instantiates `bytes`, then runs the self-tests; throws an Error saying what failed. */
export function loadWasmKernel(bytes: Uint8Array): WasmKernel {
  const ex = instantiateWasm(bytes, 'WebAssembly SIMD128') as Exports;
  const io = ex.pow_io();
  const kernel: WasmKernel = {
    search(target, kStart, kEnd) {
      if (kStart >= kEnd) return null;
      const w = target.window(kStart);
      // The memory never grows, so these views stay valid; made per call to stay simple.
      new Uint32Array(ex.memory.buffer, io, 8).set(w.mid);
      new Uint8Array(ex.memory.buffer, io + 32, 64).set(w.block);
      const { digitsEnd, digitsInBlock } = target.layout;
      const k = BigInt.asUintN(64, ex.pow_search(digitsEnd, digitsInBlock, target.difficulty, kStart, kEnd));
      return k === NOT_FOUND ? null : k;
    },
  };
  for (const t of SELF_TESTS) {
    const found = kernel.search(new PowTarget(t.nonce, t.difficulty), t.from, t.counter + 1000n);
    if (found !== t.counter) throw new Error(`self-test failed: ${JSON.stringify(t.nonce)} at difficulty ${t.difficulty} gave ${found} instead of ${t.counter}`);
  }
  return kernel;
}

/** The module's bytes (a fresh copy), for a host that compiles them itself, e.g. asynchronously. */
export function powWasmBytes(): Uint8Array {
  return decodeBase64(POW_WASM_BASE64);
}

const thisThread = loadOnce(() => loadWasmKernel(powWasmBytes()));

/** This thread's WASM kernel, loaded on first use; null when WebAssembly or SIMD128 is unavailable (see wasmLoadError). */
export function wasmKernel(): WasmKernel | null {
  return thisThread.get();
}

/** Why the WASM kernel is not in use in this thread, or null (loads it if nothing tried yet). */
export function wasmLoadError(): string | null {
  return thisThread.error();
}

/** searchRangeJs's twin on the WASM kernel; throws BackendUnavailableError where it cannot load. */
export function searchRangeWasm(target: PowTarget, kStart: bigint, kEnd: bigint): bigint | null {
  const kernel = wasmKernel();
  if (!kernel) throw new BackendUnavailableError('wasm', wasmLoadError() ?? 'unknown');
  return kernel.search(target, kStart, kEnd);
}
