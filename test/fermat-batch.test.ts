// The sieve's survivors get base-2 Fermat tests in batches: on the IFMA and
// AVX2 kernels up to sixteen at a time, one number per SIMD lane, each lane
// with its own modulus and exponent. Every kernel is checked against Python's pow().
import { spawnSync } from 'node:child_process';
import { generatePrimeSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { backendInfo } from '../src/index.ts';
import { native } from '../src/native.ts';
import { underSanitizers, usableBignumKernels } from './helpers/backends.ts';
import { randomOdd } from './helpers/number-theory.ts';
import { hasCommand, rng } from './helpers/oracles.ts';

const n = backendInfo().backend === 'native' ? native() : null;
const kernels = usableBignumKernels();
afterEach(() => {
  n?.introspect.setBignumKernel();
});

/** 2^(x−1) mod x == 1 for each x, by Python's built-in pow. */
function pythonFermat(xs: bigint[]): boolean[] {
  const r = spawnSync('python3', ['-c', 'import sys\nfor l in sys.stdin.read().split():\n  x=int(l)\n  print(int(pow(2,x-1,x)==1))'], {
    input: xs.join('\n'),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => l === '1');
}

const prime = (bits: number): bigint => generatePrimeSync(bits, { bigint: true });
// 2^p − 1 with p prime but 2^p − 1 composite passes base-2 Fermat (2^p ≡ 1 and
// p divides 2^p − 2): a pseudoprime every kernel must call a pass.
const mersennePseudoprimes = [257n, 263n, 269n, 1061n, 2039n].map((p) => (1n << p) - 1n);

/** OpenSSH's safe primes of one size (its shipped moduli file): each p and (p−1)/2. */
const opensshPrimes = (bits: number): bigint[] =>
  readFileSync(new URL('./vectors/openssh-moduli-sample.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.split(' ')[4] === String(bits - 1))
    .flatMap((l) => {
      const p = BigInt(`0x${l.split(' ')[6]}`);
      return [p, p >> 1n];
    });
const opensshPrimes8192 = opensshPrimes(8192);

/**
 * The numbers every kernel's mixed batches draw from, with Python's verdicts: made once for all kernels (node:crypto's
 * primes of up to 3072 bits take seconds).
 */
const mixedPool = (() => {
  let made: { pool: bigint[]; want: boolean[] } | null = null;
  return () => {
    if (made) return made;
    const next = rng(4242);
    // Small ones too: 341 = 11·31 and 561 = 3·11·17 are base-2 pseudoprimes.
    const pool: bigint[] = [...mersennePseudoprimes, 3n, 5n, 7n, 9n, 15n, 341n, 561n, 1105n, 2n ** 61n - 1n, 2n ** 64n + 13n];
    for (const bits of [64, 100, 256, 300, 511, 1024, 1500, 2048, 2076, 2077, 3072]) {
      pool.push(prime(bits), randomOdd(bits, next), prime(bits >> 1) * prime(bits - (bits >> 1)));
    }
    // Widths at the edge of a digit count: R = 2^(52·L) must stay ≥ 16n.
    for (const L of [5, 20, 40, 41, 60]) for (const d of [-4, -3]) pool.push(randomOdd(52 * L + d, next));
    // The AVX2 lanes' digits: 28 bits up to 127 of them (3552 bits); the 27-bit ones above are in the next test.
    for (const L of [3, 74, 127]) for (const d of [-4, -3]) pool.push(randomOdd(28 * L + d, next));
    made = { pool, want: pythonFermat(pool) };
    return made;
  };
})();

describe.runIf(n !== null && hasCommand('python3', ['--version'])).each(kernels)('fermatBase2 on the %s kernel', (kernel) => {
  it('agrees with Python on primes, composites and base-2 pseudoprimes, in mixed batches of every size', () => {
    n!.introspect.setBignumKernel(kernel);
    const { pool, want } = mixedPool();
    // Every kernel meets the same batches.
    const next = rng(4243);
    // Batches of 1..33 numbers drawn from the pool: lanes of different widths, partial and several groups of sixteen,
    // and of eight (the IFMA kernel runs eight or fewer on one register, more on two; the AVX2 kernel four, eight or
    // sixteen, and two groups of eight above 2560 bits).
    // Under the sanitizers, and for the kernels that test each number alone, each batch shape once: one, two and four
    // registers, partial, and past sixteen.
    const lanes = kernel === 'ifma' || kernel === 'avx2';
    const sizes = underSanitizers || !lanes ? [1, 4, 5, 8, 9, 16, 17, 33] : Array.from({ length: 66 }, (_, round) => 1 + (round % 33));
    for (const size of sizes) {
      const idx = Array.from({ length: size }, () => Math.floor(next() * pool.length));
      expect(n!.fermatBase2(idx.map((i) => pool[i]!)), `batch ${idx.join(',')}`).toEqual(idx.map((i) => want[i]));
    }
    // Random batches of nine or more rarely hold only numbers of up to 2560 bits, which the AVX2 kernel runs in
    // four registers: twelve and sixteen of them, every lane full or not.
    const narrow = pool.map((_, i) => i).filter((i) => pool[i]!.toString(2).length <= 2560);
    for (const size of [12, 16]) {
      const idx = Array.from({ length: size }, () => narrow[Math.floor(next() * narrow.length)]!);
      expect(n!.fermatBase2(idx.map((i) => pool[i]!)), `batch ${idx.join(',')}`).toEqual(idx.map((i) => want[i]));
    }
  });

  // Under ASan the AVX2 lanes' 8192-bit tests took 148 s on a busy 2-core machine: more than the default 120 s.
  it('agrees with Python up to the 8192-bit end of the lane kernel, and past it', { timeout: underSanitizers ? 600_000 : 120_000 }, () => {
    n!.introspect.setBignumKernel(kernel);
    const next = rng(77);
    // 4253: a Mersenne prime.
    const xs = [randomOdd(8191, next), randomOdd(8300, next), randomOdd(8316, next), randomOdd(8400, next), (1n << 4253n) - 1n];
    expect(n!.fermatBase2(xs)).toEqual(pythonFermat(xs));
    // Primes where the AVX2 lanes' squaring runs four rows a pass (from 160 digits), beside composites.
    expect(opensshPrimes8192).toHaveLength(4);
    const top = [...opensshPrimes8192, xs[0]!, opensshPrimes8192[0]! + 2n];
    expect(n!.fermatBase2(top)).toEqual(pythonFermat(top));
    expect(n!.fermatBase2(top).slice(0, 4)).toEqual([true, true, true, true]);
    // The widest number sets the digits: 6144-bit primes beside one of 27·L − 4 bits run at L = 229 to 231, so the
    // four-row passes leave one to three rows for the two-row and one-row ones.
    const [p6144, q6144] = opensshPrimes(6144);
    for (const L of [229, 230, 231]) {
      const wide = randomOdd(27 * L - 4, next);
      expect(n!.fermatBase2([p6144!, q6144!, wide]), `L = ${L}`).toEqual([true, true, ...pythonFermat([wide])]);
    }
    // The AVX2 lanes' 27-bit digits at the edge of a digit count (R = 2^(27·L) ≥ 16n), and two Mersenne primes: nine at
    // once (two groups). Only that kernel has these edges; the others test each number alone, as above.
    if (kernel !== 'avx2') return;
    const edges = (underSanitizers ? [152] : [152, 300]).flatMap((L) => [randomOdd(27 * L - 4, next), randomOdd(27 * L - 3, next)]);
    const wide = [...edges, (1n << 4423n) - 1n, (1n << 4253n) - 1n, ...edges.slice(0, 3)];
    // Python's pow takes a second or two at these sizes: each distinct number once.
    const distinct = [...new Set(wide)];
    const byPython = pythonFermat(distinct);
    expect(n!.fermatBase2(wide)).toEqual(wide.map((x) => byPython[distinct.indexOf(x)]));
  });
});

describe.runIf(n !== null)('fermatBase2 arguments', () => {
  it.each([
    ['no numbers', [], RangeError, /^n must hold 1 to 64 numbers/],
    ['65 numbers', Array(65).fill(7n), RangeError, /^n must hold 1 to 64 numbers/],
    ['an even number', [7n, 8n], RangeError, /^n\[1\] must be odd and at least 3/],
    ['1', [1n], RangeError, /^n\[0\] must be odd and at least 3/],
    ['a negative', [-7n], RangeError, /^n\[0\] must not be negative/],
    ['a number', [7n, 7], TypeError, /^n\[1\] must be a bigint/],
    ['a string', '7', TypeError, /^n must be an array of bigints/],
  ])('%s is refused', (_what, arg, type, message) => {
    expect(() => n!.fermatBase2(arg as bigint[])).toThrow(type);
    expect(() => n!.fermatBase2(arg as bigint[])).toThrow(message);
  });
});
