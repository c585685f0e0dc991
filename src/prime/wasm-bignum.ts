/**
 * The WebAssembly Montgomery kernel (native/wasm/montgomery_modexp.c):
 * base^e mod m and 2^e mod m for odd m of up to 16384 bits, the same answers
 * as modPow and pow2Mod in ./bigint.ts. No Node built-ins here: browsers' Web
 * Workers load this file too.
 *
 * Compiled synchronously, instantiated once per thread on first use, and
 * refused unless it gives four answers computed independently of this code.
 */
import { decodeBase64, instantiateWasm, loadOnce } from '../wasm-module.ts';
import { showNumber } from '../validate.ts';
import { MODEXP_WASM_BASE64 } from './wasm-bignum-bytes.ts';

/** Widest modulus and exponent the kernel takes (MAX_LIMBS 32-bit limbs in the C source). */
export const MODEXP_WASM_MAX_BITS = 16384;
const MAX_LIMBS = MODEXP_WASM_MAX_BITS / 32;

export interface WasmModexp {
  /** base^e mod m for odd m ≥ 3, base ≥ 0, e ≥ 0; m and e of at most MODEXP_WASM_MAX_BITS bits. */
  modPow(base: bigint, e: bigint, m: bigint): bigint;
  /** 2^e mod m, on the same terms. */
  pow2Mod(e: bigint, m: bigint): bigint;
}

interface Exports {
  memory: { buffer: ArrayBuffer };
  bn_io(): number;
  bn_modpow(mLimbs: number, eLimbs: number): void;
  bn_pow2mod(mLimbs: number, eLimbs: number): void;
}

/**
 * Known answers, from python3's built-in pow:
 *   python3 -c "m=3**400; print(hex(pow(2**600+12345, 5**250, m)), hex(pow(2, 7**200, m)))"
 *   python3 -c "print(hex(pow(0x12345678, 0xdeadbeef, 0xffffffff)), hex(pow(2, 0xdeadbeef, 0xffffffff)))"
 * 3^400 has 634 bits (20 limbs, windows of 5 bits); 2^32 − 1 is one limb of all ones.
 */
const SELF_TESTS: readonly { base: bigint | null; e: bigint; m: bigint; want: bigint }[] = [
  {
    base: 2n ** 600n + 12345n,
    e: 5n ** 250n,
    m: 3n ** 400n,
    want: 0x2a366a77be90214337aec9832dc6d7123822914371e3a3da22d1c1fae4028d1aa39ba1d4729492d182f6767f0b65cf7e73e6bcfed6eb5f168338d76ded307d58db3a0d00e8c61562c18bbe1198a4596n,
  },
  {
    base: null,
    e: 7n ** 200n,
    m: 3n ** 400n,
    want: 0xcd386cd121302a43840c11c4698fb7b580660227a16b9cebef8a49a044b924952328843b5b60dfd14b51c542fc0952ccd770ecea78425be73d270ebc83c088a9eda54f3ab5772175c1282e1aa029c3n,
  },
  { base: 0x12345678n, e: 0xdeadbeefn, m: 0xffffffffn, want: 0xe47cb33cn },
  { base: null, e: 0xdeadbeefn, m: 0xffffffffn, want: 0x8000n },
];

/** Writes x (< 2^(32·limbs)) as little-endian 32-bit limbs at view[at..]: through hex, linear in the size. */
function writeLimbs(view: Uint32Array, at: number, x: bigint, limbs: number): void {
  const hex = x.toString(16);
  for (let k = 0; k < limbs; k++) {
    const end = hex.length - 8 * k;
    view[at + k] = end > 0 ? Number.parseInt(hex.slice(Math.max(end - 8, 0), end), 16) : 0;
  }
}

function readLimbs(view: Uint32Array, at: number, limbs: number): bigint {
  let hex = '0x';
  for (let k = limbs - 1; k >= 0; k--) hex += view[at + k]!.toString(16).padStart(8, '0');
  return BigInt(hex);
}

const limbsOf = (x: bigint): number => Math.max(1, Math.ceil(x.toString(16).length / 8));

/** Compiles and instantiates `bytes`, then runs the self-tests; throws an Error saying what failed. */
export function loadWasmModexp(bytes: Uint8Array): WasmModexp {
  const ex = instantiateWasm(bytes, 'WebAssembly SIMD128 or bulk memory') as Exports;
  const io = ex.bn_io() >> 2;
  // The memory never grows, so one view serves every call. Fields of the C struct BnIo, in limbs.
  const view = new Uint32Array(ex.memory.buffer);
  const [M, BASE, E, OUT] = [io, io + MAX_LIMBS, io + 2 * MAX_LIMBS, io + 3 * MAX_LIMBS];
  /** Writes m and e, or answers the cases the kernel does not take; null where it should run. */
  const prepare = (e: bigint, m: bigint): { limbs: number; eLimbs: number } | bigint => {
    if ((m & 1n) === 0n || m < 3n) throw new RangeError(`the modulus must be odd and at least 3 (got ${showNumber(m)})`);
    if (e < 0n) throw new RangeError(`the exponent must not be negative (got ${showNumber(e)})`);
    const limbs = limbsOf(m);
    const eLimbs = limbsOf(e);
    if (limbs > MAX_LIMBS || eLimbs > MAX_LIMBS) throw new RangeError(`the modulus and the exponent must have at most ${MODEXP_WASM_MAX_BITS} bits`);
    if (e === 0n) return 1n;
    writeLimbs(view, M, m, limbs);
    writeLimbs(view, E, e, eLimbs);
    return { limbs, eLimbs };
  };
  const kernel: WasmModexp = {
    modPow(base, e, m) {
      const p = prepare(e, m);
      if (typeof p === 'bigint') return p;
      if (base < 0n) throw new RangeError(`the base must not be negative (got ${showNumber(base)})`);
      writeLimbs(view, BASE, base < m ? base : base % m, p.limbs);
      ex.bn_modpow(p.limbs, p.eLimbs);
      return readLimbs(view, OUT, p.limbs);
    },
    pow2Mod(e, m) {
      const p = prepare(e, m);
      if (typeof p === 'bigint') return p;
      ex.bn_pow2mod(p.limbs, p.eLimbs);
      return readLimbs(view, OUT, p.limbs);
    },
  };
  for (const t of SELF_TESTS) {
    const got = t.base === null ? kernel.pow2Mod(t.e, t.m) : kernel.modPow(t.base, t.e, t.m);
    if (got !== t.want) throw new Error(`self-test failed: ${t.base ?? 2n}^${t.e} mod ${t.m} gave ${got} instead of ${t.want}`);
  }
  return kernel;
}

const thisThread = loadOnce(() => loadWasmModexp(decodeBase64(MODEXP_WASM_BASE64)));

/** This thread's kernel, loaded on first use; null where WebAssembly is unavailable or the self-test failed (see wasmModexpError). */
export function wasmModexp(): WasmModexp | null {
  return thisThread.get();
}

/** Why the kernel is not in use in this thread, or null (loads it if nothing tried yet). */
export function wasmModexpError(): string | null {
  return thisThread.error();
}
