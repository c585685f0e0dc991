/**
 * The TS prime backend's modular exponentiations: the WebAssembly kernel
 * (./wasm-bignum.ts) for moduli of the sizes where it was measured faster
 * here, BigInt (./bigint.ts) elsewhere. Both give the same answers, so the
 * choice changes only the speed. No Node built-ins: browsers may load this.
 *
 * Measured, not assumed: the first exponentiation of each size class (64
 * bits wide up to 1024 bits, 512 above) times both on exponentiations of that
 * modulus, keeps the faster for the thread's life, and costs a few
 * milliseconds. The answer
 * depends on the CPU and the engine (V8's BigInt multiplication switches to
 * Karatsuba at a size; another engine may be faster or slower than both).
 */
import { jsAlone } from '../backend-env.ts';
import { bitLength, modPow, pow2Mod } from './bigint.ts';
import { MODEXP_WASM_MAX_BITS, wasmModexp, type WasmModexp } from './wasm-bignum.ts';

/** 'timed' (the default) as above; 'wasm' wherever the kernel takes the size; 'bigint' never the kernel. */
export type ModexpMode = 'timed' | 'wasm' | 'bigint';

/** POWPRIME_BACKEND=js asks for TypeScript alone, as it does for proof of work: no WebAssembly kernel. */
function defaultMode(): ModexpMode {
  return jsAlone() ? 'bigint' : 'timed';
}

let mode: ModexpMode | undefined;
/** Size class → whether the kernel won its timing. */
const wasmWon = new Map<number, boolean>();
const sizeClass = (bits: number): number => (bits <= 1024 ? Math.ceil(bits / 64) : 100 + Math.ceil(bits / 512));

/** Sets how exponentiations choose (tests and the bench force one side); 'timed' times afresh. */
export function setModexpMode(m: ModexpMode): void {
  mode = m;
  wasmWon.clear();
}

const now = (): number => (globalThis as { performance?: { now(): number } }).performance?.now() ?? Date.now();

function elapsed(f: () => unknown, reps: number): number {
  const t = now();
  for (let i = 0; i < reps; i++) f();
  return now() - t;
}

/**
 * Whether the kernel beats BigInt on moduli like m: each timed twice (the best
 * of two, so that the engine's first compile of the kernel is not held
 * against it) on 2^e' mod m, e' the top bits of m − 1, as many as keep one
 * BigInt exponentiation to a few milliseconds, repeated at small sizes to a
 * millisecond or so (timers are coarse).
 */
function timeClass(k: WasmModexp, m: bigint, bits: number): boolean {
  const keep = Math.min(bits, Math.max(128, Math.floor(4e9 / (bits * bits))));
  const e = (m - 1n) >> BigInt(bits - keep);
  const reps = Math.max(1, Math.ceil(2 ** 18 / (bits * keep)));
  let wasm = Number.POSITIVE_INFINITY;
  let big = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 2; i++) {
    wasm = Math.min(
      wasm,
      elapsed(() => k.pow2Mod(e, m), reps),
    );
    big = Math.min(
      big,
      elapsed(() => pow2Mod(e, m), reps),
    );
  }
  return wasm < big;
}

/** The kernel where it should run base^e mod m (or 2^e), else null. */
function kernelFor(e: bigint, m: bigint): WasmModexp | null {
  mode ??= defaultMode();
  if (mode === 'bigint' || (m & 1n) === 0n || m < 3n || e < 0n) return null;
  const bits = bitLength(m);
  if (bits > MODEXP_WASM_MAX_BITS || bitLength(e) > MODEXP_WASM_MAX_BITS) return null;
  const k = wasmModexp();
  if (!k || mode === 'wasm') return k;
  const c = sizeClass(bits);
  let won = wasmWon.get(c);
  if (won === undefined) {
    won = timeClass(k, m, bits);
    wasmWon.set(c, won);
  }
  return won ? k : null;
}

/** base^e mod m, as modPow in ./bigint.ts. */
export function modPowFast(base: bigint, e: bigint, m: bigint): bigint {
  const k = base >= 0n ? kernelFor(e, m) : null;
  return k ? k.modPow(base, e, m) : modPow(base, e, m);
}

/** 2^e mod m, as pow2Mod in ./bigint.ts. */
export function pow2ModFast(e: bigint, m: bigint): bigint {
  const k = kernelFor(e, m);
  return k ? k.pow2Mod(e, m) : pow2Mod(e, m);
}
