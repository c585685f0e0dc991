import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_DIFFICULTY, MAX_ROUNDS, MIN_DIFFICULTY, MIN_ROUNDS, NATIVE_MAX_BITS, NATIVE_MAX_LIMBS } from '../src/limits.ts';
import type { NativeBinding, NativeIntrospect } from '../src/native-binding.ts';
import { native } from '../src/native.ts';
import { DENSE_SIEVE_LIMIT } from '../src/prime/sieve.ts';
import { FOUR, THREE } from '../src/pow/kernel.ts';
import { defaultRounds } from '../src/prime/primality.ts';
import { TRIAL_PRIMES } from '../src/prime/small-primes.ts';
import { SIEVE_LIMIT_MAX, sieveLimit } from '../src/prime/sieve-depth.ts';
import { windowBits } from '../src/prime/tuning.ts';

// Every table that exists both in the native core and in the TS backend, read
// from the addon and held equal to its TS twin, so neither can drift alone.
const n = native();

describe.runIf(n !== null)('TS tables equal their native originals', () => {
  const t = n ? n.introspect.tables() : null;

  it('Miller–Rabin default rounds, for every size the native core takes', () => {
    const native = (bits: number): number => (bits <= t!.bpswExactBits ? 0 : t!.defaultRounds.find(([min]) => bits >= min)![1]);
    expect(t!.defaultRounds.length).toBeGreaterThan(3);
    const differ: number[][] = [];
    for (let bits = 1; bits <= 64 * 511; bits++) if (defaultRounds(bits) !== native(bits)) differ.push([bits, defaultRounds(bits), native(bits)]);
    expect(differ, '[bits, TS, native]').toEqual([]);
    // Spot values of the published table (2^-80 error bound).
    expect([defaultRounds(64), defaultRounds(65), defaultRounds(1024), defaultRounds(2048), defaultRounds(4096)]).toEqual([0, 27, 5, 4, 3]);
  });

  it('sliding-window widths', () => {
    const native = (bits: number): number => t!.windowBits.find(([above]) => bits > above)?.[1] ?? 1;
    expect(t!.windowBits.length).toBeGreaterThan(2);
    const differ: number[][] = [];
    for (let bits = 0; bits <= 64 * 511; bits++) if (windowBits(bits) !== native(bits)) differ.push([bits, windowBits(bits), native(bits)]);
    expect(differ, '[bits, TS, native]').toEqual([]);
  });

  it('trial-division primes and the sieve depth', () => {
    expect(t!.trialPrimesBelow).toBe(1000);
    expect(Array.from(TRIAL_PRIMES)).toEqual(Array.from(t!.trialPrimes));
    // 168 primes below 1000, without 2.
    expect(TRIAL_PRIMES.length).toBe(167);
    expect(SIEVE_LIMIT_MAX).toBe(t!.sieveLimit);
    expect(sieveLimit(100_000, 'native', { machine: { totalBytes: 2 ** 40, threads: 2 } })).toBe(t!.sieveLimit);
  });

  it('proof-of-work fast-word tables', () => {
    expect(Array.from(FOUR, (x) => x >>> 0)).toEqual(Array.from(t!.powFastWordsFour));
    expect(Array.from(THREE, (x) => x >>> 0)).toEqual(Array.from(t!.powFastWordsThree));
    // Candidate 42 of a 4-digit group is the ASCII digits "0042".
    expect(t!.powFastWordsFour[42]).toBe(Buffer.from('0042').readUInt32BE(0));
    expect(t!.powFastWordsThree[7]).toBe(Buffer.from([0x30, 0x30, 0x37, 0x80]).readUInt32BE(0));
  });
});

// The C++ side read as text, so these twins are checked even where the addon
// did not load.
const source = (file: string): string => readFileSync(new URL(`../native/${file}`, import.meta.url), 'utf8');

/** The value of `constexpr <type> name = <n>;` or `= 1u << <k>;` in a C++ header. */
function constant(file: string, name: string): number {
  const m = new RegExp(`constexpr\\s+[\\w:]+\\s+${name}\\s*=\\s*([^;]+);`).exec(source(file));
  if (!m) throw new Error(`${name} not found in native/${file}`);
  const shift = /^(\d+)u?\s*<<\s*(\d+)$/.exec(m[1]!.trim());
  if (shift) return Number(shift[1]) * 2 ** Number(shift[2]);
  if (!/^\d+$/.test(m[1]!.trim())) throw new Error(`${name} in native/${file} is not a plain number: ${m[1]}`);
  return Number(m[1]);
}

/** The bindings (native/napi/*.cc), one text. */
const bindings = (): string =>
  readdirSync(new URL('../native/napi/', import.meta.url))
    .filter((f) => f.endsWith('.cc'))
    .map((f) => source(`napi/${f}`))
    .join('\n');

/** [lo, hi] of the get_u32 range check on the argument `name` in native/napi/ (each must appear once). */
function addonRange(name: string): [number, number] {
  const all = [...bindings().matchAll(new RegExp(`get_u32\\(info, [\\w ]+, "${name}", (\\d+), (\\d+)\\)`, 'g'))];
  expect(all.length, `get_u32 checks of ${name} in native/napi/`).toBe(1);
  return [Number(all[0]![1]), Number(all[0]![2])];
}

describe('src/limits.ts equals the bounds the C++ source states', () => {
  it('the widest native operand (kMaxLimbs)', () => {
    expect(constant('bignum/limbs.h', 'kMaxLimbs')).toBe(NATIVE_MAX_LIMBS);
  });

  it('Miller–Rabin rounds and proof-of-work difficulty, as native/napi/ checks them', () => {
    expect(addonRange('rounds')).toEqual([MIN_ROUNDS, MAX_ROUNDS]);
    expect(addonRange('difficulty')).toEqual([MIN_DIFFICULTY, MAX_DIFFICULTY]);
  });

  it('the dense tier of the sieve (kDenseSieveLimit)', () => {
    expect(constant('bignum/small_primes.h', 'kDenseSieveLimit')).toBe(DENSE_SIEVE_LIMIT);
  });

  it('the parser reads what it should (so the checks above can fail)', () => {
    expect(() => constant('bignum/limbs.h', 'kNoSuchConstant')).toThrow(/not found/);
    expect(constant('bignum/small_primes.h', 'kTrialPrimesBelow')).toBe(1000);
  });
});

// The exports: native/napi/init.cc's Init, these lists, the interfaces that use
// them (NativeBinding and NativeIntrospect in src/native.ts, the lock binding in
// src/fs/file-lock.ts) and the loaded addon, each equal to the others both
// ways, so a function added or dropped on one side alone fails here.
const NATIVE_EXPORTS = [
  'lockOpen',
  'lockClose',
  'isProbablePrime',
  'isSafePrime',
  'modPow',
  'pow2Mod',
  'fermatBase2',
  'SafePrimeSieve',
  'backendInfo',
  'sha256',
  'powSearch',
  'exitNow',
  'exitOnStopSignals',
  'holdStopSignals',
  'heldStopSignal',
  'releaseStopSignals',
  'readerGone',
  'version',
  'introspect',
] as const;

/** The test-only exports, under `introspect`. */
const INTROSPECT_EXPORTS = ['tables', 'setBignumKernel', 'sieveRoots', 'deepPrimes', 'nativeMemory'] as const;

type NativeExport = (typeof NATIVE_EXPORTS)[number];
type IntrospectExport = (typeof INTROSPECT_EXPORTS)[number];

type LockExports = 'lockOpen' | 'lockClose';
type Expected = keyof NativeBinding | LockExports;
// Compile-time: the list names exactly the members of the interfaces (typecheck fails otherwise).
const listCoversInterfaces: [Exclude<Expected, NativeExport>] extends [never] ? true : false = true;
const interfacesCoverList: [Exclude<NativeExport, Expected>] extends [never] ? true : false = true;
const introspectListCoversInterface: [Exclude<keyof NativeIntrospect, IntrospectExport>] extends [never] ? true : false = true;
const introspectInterfaceCoversList: [Exclude<IntrospectExport, keyof NativeIntrospect>] extends [never] ? true : false = true;

describe("the addon's exports", () => {
  const declared = (on: string): string[] => [...source('napi/init.cc').matchAll(new RegExp(`\\b${on}\\.Set\\("(\\w+)"`, 'g'))].map((m) => m[1]!);

  it('native/napi/init.cc exports exactly the names listed here', () => {
    expect(listCoversInterfaces && interfacesCoverList).toBe(true);
    const top = declared('exports');
    expect(top.length).toBeGreaterThan(10);
    expect(new Set(top).size).toBe(top.length);
    expect([...top].sort()).toEqual([...NATIVE_EXPORTS].sort());
  });

  it('and the test-only ones under introspect', () => {
    expect(introspectListCoversInterface && introspectInterfaceCoversList).toBe(true);
    const inner = declared('introspect');
    expect(new Set(inner).size).toBe(inner.length);
    expect([...inner].sort()).toEqual([...INTROSPECT_EXPORTS].sort());
  });

  it.runIf(n !== null)('the loaded addon has exactly those keys', () => {
    expect(Object.keys(n!).sort()).toEqual([...NATIVE_EXPORTS].sort());
    expect(Object.keys(n!.introspect).sort()).toEqual([...INTROSPECT_EXPORTS].sort());
  });
});

describe.runIf(n !== null)('the native core keeps the limits src/limits.ts states', () => {
  it(`takes numbers of ${NATIVE_MAX_BITS} bits and refuses one bit more`, () => {
    expect(n!.isProbablePrime((1n << BigInt(NATIVE_MAX_BITS)) - 1n, 0)).toBe(false);
    expect(() => n!.isProbablePrime(1n << BigInt(NATIVE_MAX_BITS), 0)).toThrow(RangeError);
  });

  it(`takes ${MAX_ROUNDS} rounds and refuses one more`, () => {
    expect(n!.isProbablePrime(101n, MAX_ROUNDS)).toBe(true);
    expect(() => n!.isProbablePrime(101n, MAX_ROUNDS + 1)).toThrow(RangeError);
  });
});

/** Kernel ids of the rows `const|constexpr <type> kX = {"id", …` in these source files, with the architecture each compiles for. */
function kernelRows(dir: string, type: string): { id: string; arch: string | null }[] {
  const rows: { id: string; arch: string | null }[] = [];
  for (const file of readdirSync(new URL(`../native/${dir}/`, import.meta.url)).filter((f) => f.endsWith('.cc'))) {
    const text = source(`${dir}/${file}`);
    // A file guarded by one architecture's macro compiles its rows there only.
    const arch = /#if defined\(__x86_64__\)/.test(text) ? 'x64' : /#if defined\(__aarch64__\)/.test(text) ? 'arm64' : null;
    for (const m of text.matchAll(new RegExp(`${type}\\s+k\\w+\\s*=\\s*\\{\\s*"([\\w-]+)"`, 'g'))) rows.push({ id: m[1]!, arch });
  }
  return rows;
}

describe.runIf(n !== null)('kernel names: every row of the C++ kernel tables is reported by backendInfo(), usable or refused, and nothing else', () => {
  const info = n ? n.backendInfo() : null;
  const here = (rows: { id: string; arch: string | null }[]): string[] => [...new Set(rows.filter((r) => r.arch === null || r.arch === process.arch).map((r) => r.id))].sort();
  const refusedIds = (list: string[]): string[] => list.map((r) => r.slice(0, r.indexOf(':')));

  it('SHA-256 proof-of-work searchers', () => {
    const rows = here(kernelRows('sha256', 'PowGroupSearcher'));
    expect(rows).toContain('scalar');
    const reported = [...info!.kernels, ...refusedIds(info!.refused)];
    for (const id of info!.kernels) expect(rows).toContain(id);
    for (const id of rows) expect(reported).toContain(id);
  });

  it('SHA-256 message hashers', () => {
    const rows = here(kernelRows('sha256', 'BlockHasher'));
    expect(rows).toContain('scalar');
    const reported = [...info!.hashers, ...refusedIds(info!.refused)];
    for (const id of info!.hashers) expect(rows).toContain(id);
    for (const id of rows) expect(reported).toContain(id);
  });

  it('bignum kernels', () => {
    const rows = here(kernelRows('bignum', 'BignumKernel'));
    expect(rows).toContain('portable');
    expect([...info!.bignumKernels, ...refusedIds(info!.bignumRefused)].sort()).toEqual(rows);
  });
});
