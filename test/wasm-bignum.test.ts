// The WebAssembly Montgomery kernel (src/prime/wasm-bignum.ts) against
// independent oracles: python3's pow, node:crypto's checkPrimeSync, and BigInt
// modPow / pow2Mod over random odd moduli; and the TS prime backend's
// verdicts with the kernel forced on, unchanged on known primes and composites.
import { spawnSync } from 'node:child_process';
import { checkPrimeSync, generatePrimeSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { modPow, pow2Mod } from '../src/prime/bigint.ts';
import { setModexpMode } from '../src/prime/modexp.ts';
import { fermatBase2, isProbablePrimeJs, isSafePrimeJs, strongBase2 } from '../src/prime/primality.ts';
import { loadWasmModexp, MODEXP_WASM_MAX_BITS, wasmModexp, wasmModexpError } from '../src/prime/wasm-bignum.ts';
import { chernickCarmichaels, randomOdd } from './helpers/number-theory.ts';
import { hasCommand, rng } from './helpers/oracles.ts';

const k = wasmModexp();
const rfc = Object.entries((JSON.parse(readFileSync(new URL('./vectors/rfc-safe-primes.json', import.meta.url), 'utf8')) as { safe_primes: Record<string, string> }).safe_primes).map(
  ([name, hex]) => [name, BigInt(hex)] as const,
);
// OEIS A002997 (Carmichael numbers) and A001262 (strong pseudoprimes to base 2).
const CARMICHAEL = [561n, 1105n, 1729n, 2465n, 2821n, 6601n, 8911n, 10585n, 15841n, 29341n, 41041n, 46657n, 52633n, 62745n, 63973n, 75361n];
const SPSP2 = [2047n, 3277n, 4033n, 4681n, 8321n, 15841n, 29341n, 42799n, 49141n, 52633n, 65281n, 74665n, 80581n, 85489n, 88357n, 90751n];

afterAll(() => setModexpMode('timed'));

describe('the WebAssembly modexp kernel', () => {
  it('loads here (Node 20 has WebAssembly SIMD128) and passed its self-test', () => {
    expect(wasmModexpError()).toBeNull();
    expect(k).not.toBeNull();
  });

  it('is refused when the bytes are not its module', () => {
    expect(() => loadWasmModexp(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1]))).toThrow(/refuses the module/);
  });

  it('refuses what it does not take with RangeError: even or tiny moduli, negative operands, too wide', () => {
    expect(() => k!.modPow(2n, 5n, 10n)).toThrow(RangeError);
    expect(() => k!.pow2Mod(5n, 1n)).toThrow(RangeError);
    expect(() => k!.modPow(-1n, 5n, 11n)).toThrow(RangeError);
    expect(() => k!.pow2Mod(-5n, 11n)).toThrow(RangeError);
    expect(() => k!.pow2Mod(3n, (1n << BigInt(MODEXP_WASM_MAX_BITS)) + 1n)).toThrow(RangeError);
  });

  it.runIf(hasCommand('python3', ['--version']))('agrees with python3 pow() from 64 to 16384 bits', () => {
    const next = rng(7);
    const cases = [64, 521, 1024, 2048, 3072, 4096, 8192, 16384].map((bits) => ({ b: randomOdd(bits, next) >> 3n, e: randomOdd(bits < 4096 ? bits : 256, next), m: randomOdd(bits, next) }));
    const script = 'import sys\nfor line in sys.stdin:\n  b, e, m = (int(x, 16) for x in line.split())\n  print(format(pow(b, e, m), "x"), format(pow(2, e, m), "x"))\n';
    const input = cases.map((c) => `${c.b.toString(16)} ${c.e.toString(16)} ${c.m.toString(16)}`).join('\n');
    const py = spawnSync('python3', ['-c', script], { input, encoding: 'utf8' });
    expect(py.status, py.stderr).toBe(0);
    const answers = py.stdout.trim().split('\n');
    expect(answers).toHaveLength(cases.length);
    for (const [i, c] of cases.entries()) {
      const [general, two] = answers[i]!.split(' ').map((h) => BigInt(`0x${h}`));
      expect(k!.modPow(c.b, c.e, c.m), `${c.m.toString(2).length} bits`).toBe(general);
      expect(k!.pow2Mod(c.e, c.m), `${c.m.toString(2).length} bits`).toBe(two);
    }
  });

  it('equals BigInt modPow and pow2Mod over random odd moduli of 2 to 8192 bits and the edge operands', () => {
    // Exponents as wide as the modulus up to 2048 bits, shorter beyond (BigInt takes seconds there).
    const arb = fc.integer({ min: 2, max: 8192 }).chain((bits) =>
      fc.record({
        m: fc.oneof(
          fc.bigInt({ min: 1n << BigInt(bits - 1), max: (1n << BigInt(bits)) - 1n }).map((m) => m | 1n),
          fc.constantFrom(3n, (1n << BigInt(bits)) - 1n, (1n << BigInt(32 * Math.ceil(bits / 32))) - 1n, (1n << BigInt(30 * Math.ceil(bits / 30))) - 1n),
        ),
        base: fc.oneof(fc.bigInt({ min: 0n, max: 1n << BigInt(bits + 2) }), fc.constantFrom('0', '1', 'm-1', 'm', 'm+1', '2m+3')),
        e: fc.oneof(fc.bigInt({ min: 0n, max: (1n << BigInt(Math.min(bits, 2048, Math.floor(2 ** 22 / bits)))) - 1n }), fc.constantFrom(0n, 1n, 2n, 3n)),
      }),
    );
    fc.assert(
      fc.property(arb, ({ m, base, e }) => {
        const b = typeof base === 'bigint' ? base : { 0: 0n, 1: 1n, 'm-1': m - 1n, m, 'm+1': m + 1n, '2m+3': 2n * m + 3n }[base];
        expect(k!.modPow(b, e, m)).toBe(modPow(b, e, m));
        expect(k!.pow2Mod(e, m)).toBe(pow2Mod(e, m));
      }),
      { numRuns: 150, seed: 20261129 },
    );
  });

  it('full-width exponents at the sizes the bench times equal BigInt', () => {
    const next = rng(11);
    for (const bits of [3072, 4096]) {
      const m = randomOdd(bits, next);
      expect(k!.pow2Mod(m - 1n, m)).toBe(pow2Mod(m - 1n, m));
      expect(k!.modPow(m >> 1n, m - 2n, m)).toBe(modPow(m >> 1n, m - 2n, m));
    }
  });
});

describe('the TS prime backend with the kernel forced on', () => {
  it('gives node:crypto checkPrimeSync verdicts on random odd numbers and on products of two primes', () => {
    setModexpMode('wasm');
    const next = rng(3);
    for (const bits of [40, 64, 127, 256, 512, 1024]) {
      for (let i = 0; i < 12; i++) {
        const n = randomOdd(bits, next);
        expect(isProbablePrimeJs(n), `${n}`).toBe(checkPrimeSync(n));
      }
      const p = generatePrimeSync(Math.max(bits >> 1, 16), { bigint: true });
      const q = generatePrimeSync(Math.max(bits >> 1, 16), { bigint: true });
      expect(isProbablePrimeJs(p)).toBe(true);
      expect(isProbablePrimeJs(p * q)).toBe(false);
    }
  });

  it('finds the RFC 2409/3526/7919 safe primes up to 3072 bits safe and the same numbers less 2^64 not', () => {
    setModexpMode('wasm');
    const small = rfc.filter(([, p]) => p < 1n << 3073n);
    expect(small.length).toBeGreaterThanOrEqual(4);
    for (const [name, p] of small) {
      expect(isSafePrimeJs(p), name).toBe(true);
      expect(isSafePrimeJs(p - (1n << 64n)), name).toBe(false);
    }
  });

  it('rejects Carmichael numbers, and base-2 strong pseudoprimes pass strong base 2 exactly as with BigInt', () => {
    setModexpMode('wasm');
    for (const n of [...CARMICHAEL, ...chernickCarmichaels(10n ** 30n, 3)]) expect(isProbablePrimeJs(n, -1, false), String(n)).toBe(false);
    for (const n of SPSP2) {
      expect(strongBase2(n), String(n)).toBe(true);
      expect(isProbablePrimeJs(n, -1, false), String(n)).toBe(false);
    }
    // 341 = 11·31 is a Fermat pseudoprime to base 2, 561 too; 9 is not.
    expect([341n, 561n, 9n].map(fermatBase2)).toEqual([true, true, false]);
  });

  it('gives the same verdicts timed, forced on and forced off', () => {
    const next = rng(5);
    const ns = [...Array.from({ length: 20 }, () => randomOdd(300, next)), ...rfc.map(([, p]) => p).filter((p) => p < 1n << 1537n)];
    const verdicts = (mode: 'timed' | 'wasm' | 'bigint'): boolean[] => {
      setModexpMode(mode);
      return ns.map((n) => isProbablePrimeJs(n) && fermatBase2(n));
    };
    const off = verdicts('bigint');
    expect(off.filter(Boolean).length).toBeGreaterThan(0);
    expect(verdicts('wasm')).toEqual(off);
    expect(verdicts('timed')).toEqual(off);
  });
});
