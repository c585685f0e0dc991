import { checkPrimeSync, generatePrimeSync } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { backendInfo, closePool, searchSafePrimes } from '../src/index.ts';
import { native } from '../src/native.ts';
import { modPow, pow2Mod } from '../src/prime/bigint.ts';
import { isProbablePrimeJs, isSafePrimeJs } from '../src/prime/primality.ts';
import { DENSE_SIEVE_LIMIT, SafePrimeSieveJs } from '../src/prime/sieve.ts';
import { textbookPowMod } from './helpers/number-theory.ts';
import { usableBignumKernels } from './helpers/backends.ts';
import { rng } from './helpers/oracles.ts';

// Every native multiplication kernel this CPU has (portable, MULX/ADX, AVX2
// lanes, AVX-512 IFMA), each checked against the TS backend and independent arithmetic.
const n = backendInfo().backend === 'native' ? native() : null;
const best = n ? n.backendInfo().bignum : '';
const kernels = usableBignumKernels();
// A test that caps the kernel and fails half-way must not leave the cap to the next one.
afterEach(() => {
  n?.introspect.setBignumKernel();
});
afterAll(async () => {
  n?.introspect.setBignumKernel();
  await closePool();
});

function randomBits(bits: number, next: () => number): bigint {
  let x = 1n;
  for (let i = 1; i < bits; i++) x = (x << 1n) | (next() < 0.5 ? 1n : 0n);
  return x;
}

it.runIf(n === null)('without the addon the bignum work runs on the TS backend', () => {
  expect(backendInfo().bignum).toBe('js');
});

describe.runIf(n !== null)('the native bignum kernel table', () => {
  it('backendInfo lists the usable kernels best first, the portable one last, and says why any other is refused', () => {
    const info = n!.backendInfo();
    expect(info.bignumKernels.at(-1)).toBe('portable');
    expect(info.bignum).toBe(best);
    expect(new Set(info.bignumKernels).size).toBe(info.bignumKernels.length);
    for (const r of info.bignumRefused) expect(r).toMatch(/^[a-z0-9-]+: (CPU lacks .+|self-test failed)$/);
    for (const id of info.bignumKernels) expect(info.bignumRefused.some((r) => r.startsWith(`${id}:`))).toBe(false);
    // A kernel whose instructions the CPU has is refused only by a failed self-test, which must not happen here.
    const { cpu } = info;
    expect(info.bignumKernels.includes('adx')).toBe(cpu.bmi2 && cpu.adx && process.arch === 'x64');
    expect(info.bignumKernels.includes('ifma')).toBe(cpu.avx512ifma && cpu.bmi2 && cpu.adx && process.arch === 'x64');
    expect(info.bignumKernels.includes('avx2')).toBe(cpu.avx2 && cpu.bmi2 && cpu.adx && process.arch === 'x64');
    expect(backendInfo().bignumKernels).toEqual(info.bignumKernels);
    expect(backendInfo().bignumRefused).toEqual(info.bignumRefused);
  });

  it('setBignumKernel takes only a usable id', () => {
    for (const bad of ['nope', 'IFMA', '']) {
      expect(() => n!.introspect.setBignumKernel(bad)).toThrow(RangeError);
      expect(() => n!.introspect.setBignumKernel(bad)).toThrow(/is not a bignum kernel usable on this machine$/);
    }
    expect(() => n!.introspect.setBignumKernel(3 as unknown as string)).toThrow(TypeError);
    expect(n!.backendInfo().bignum).toBe(best);
  });
});

describe.runIf(n !== null).each(kernels)('native bignum kernel %s', (kernel) => {
  it('is the kernel in force, and the best one comes back', () => {
    const name = n!.introspect.setBignumKernel(kernel);
    expect(n!.backendInfo().bignum).toBe(name);
    expect(n!.introspect.setBignumKernel()).toBe(best);
    expect(n!.backendInfo().bignum).toBe(best);
  });

  it('BPSW alone (no trial division) gives the verdicts of trial division on every odd number below 3000', () => {
    n!.introspect.setBignumKernel(kernel);
    // Small numbers sit furthest below a kernel's padded width (the ADX and
    // IFMA kernels pad a 1-word modulus to 4 words): 5 and 11 were once called composite there.
    const trialDivision = (x: number): boolean => {
      for (let d = 3; d * d <= x; d += 2) if (x % d === 0) return false;
      return true;
    };
    for (const x of [5, 7, 11, 13]) expect(n!.isProbablePrime(BigInt(x), 0, false), String(x)).toBe(true);
    for (let x = 3; x < 3000; x += 2) {
      expect(n!.isProbablePrime(BigInt(x), 0, false), String(x)).toBe(trialDivision(x));
      expect(n!.isProbablePrime(BigInt(x), 2, false), String(x)).toBe(trialDivision(x));
    }
    n!.introspect.setBignumKernel();
  });

  it('modPow refuses a base at or above the modulus, whatever width the kernel pads the modulus to', () => {
    n!.introspect.setBignumKernel(kernel);
    try {
      const cases: [bigint, bigint][] = [
        [10n, 7n],
        [7n, 7n],
        [2n ** 64n + 5n, 2n ** 64n + 3n],
        [2n ** 192n + 1n, 2n ** 192n - 1n],
        [2n ** 300n, 2n ** 257n + 1n],
      ];
      for (const [base, modulus] of cases) expect(() => n!.modPow(base, 1n, modulus)).toThrow(/^base must be below modulus$/);
      for (const [base, modulus] of cases) expect(() => n!.modPow(base, 1n, modulus)).toThrow(RangeError);
      expect(n!.modPow(6n, 1n, 7n)).toBe(6n);
      expect(n!.modPow(2n ** 64n + 2n, 1n, 2n ** 64n + 3n)).toBe(2n ** 64n + 2n);
    } finally {
      n!.introspect.setBignumKernel();
    }
  });

  it('modPow and pow2Mod agree with textbook arithmetic from 64 to 4200 bits', () => {
    n!.introspect.setBignumKernel(kernel);
    const next = rng(31);
    for (const bits of [64, 65, 191, 512, 700, 830, 831, 1024, 1100, 1248, 1249, 1536, 2048, 2078, 2079, 3072, 3326, 4096, 4158, 4159, 4200]) {
      const m = randomBits(bits, next) | 1n;
      const b = randomBits(bits - 1, next);
      const e = randomBits(bits, next);
      const want = bits <= 1536 ? textbookPowMod(b, e, m) : modPow(b, e, m);
      expect(n!.modPow(b, e, m), `${bits} bits`).toBe(want);
      expect(n!.pow2Mod(e, m), `${bits} bits`).toBe(pow2Mod(e, m));
    }
    n!.introspect.setBignumKernel();
  });

  it('primality verdicts agree with TS and node:crypto', () => {
    n!.introspect.setBignumKernel(kernel);
    const next = rng(77);
    for (const bits of [700, 1024, 1100, 1536, 2048]) {
      const p = generatePrimeSync(bits, { bigint: true });
      expect(n!.isProbablePrime(p)).toBe(true);
      for (let i = 0; i < 20; i++) {
        const c = randomBits(bits, next) | 1n;
        const v = n!.isProbablePrime(c);
        expect(v).toBe(isProbablePrimeJs(c));
        expect(v).toBe(checkPrimeSync(c));
      }
    }
    const safe = generatePrimeSync(768, { bigint: true, safe: true });
    expect(n!.isSafePrime(safe)).toBe(true);
    expect(isSafePrimeJs(safe)).toBe(true);
    n!.introspect.setBignumKernel();
  });

  it('a 1024-bit seeded search finds the same primes as the TS backend', async () => {
    n!.introspect.setBignumKernel(kernel);
    const got: bigint[] = [];
    for await (const r of searchSafePrimes({ bits: 1024, count: 2, seed: 31337n, backend: 'native' })) got.push(r.prime);
    n!.introspect.setBignumKernel();
    const ref: bigint[] = [];
    for await (const r of searchSafePrimes({ bits: 1024, count: 2, seed: 31337n, backend: 'js' })) ref.push(r.prime);
    expect(got).toEqual(ref);
  });

  // The sieve's roots (start mod every sieve prime) follow the kernel in
  // force: AVX-512F, AVX2 and portable copies of the same loop.
  it('the sieve strikes the candidates the TS twin strikes, dense and deep primes alike', () => {
    n!.introspect.setBignumKernel(kernel);
    try {
      const next = rng(5);
      for (const bits of [300, 1024, 2048]) {
        const x = randomBits(bits, next) | (1n << BigInt(bits - 1));
        const start = x - (x % 12n) + 11n;
        const limit = DENSE_SIEVE_LIMIT + (1 << 20);
        const a = new n!.SafePrimeSieve(start, limit).search(0, 8192);
        const b = new SafePrimeSieveJs(start, limit).search(0, 8192);
        expect(a.found).toBe(b.found);
        if (a.found === null) expect(a.tested).toBe(b.tested);
      }
    } finally {
      n!.introspect.setBignumKernel();
    }
  });
});
