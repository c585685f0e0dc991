import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { backendInfo, sha256 } from '../src/index.ts';
import { native } from '../src/native.ts';
import { hasCommand, nodeSha256Hex, opensslSha256Hex, pythonSha256Hex, rng } from './helpers/oracles.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
// Message hashers only: AVX2 searches proof-of-work groups and hashes no message.
const hashers = native()?.backendInfo().hashers ?? [];
const kernels = ['js', ...hashers];

// FIPS 180-2 / 180-4 example messages and their published digests.
const FIPS: [string, string][] = [
  ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
  ['abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu', 'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1'],
  ['a'.repeat(1_000_000), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
];

// NIST's byte-oriented messages (0 to 8577 bytes), as packaged by hash-test-vectors.
const nist = createRequire(import.meta.url)('hash-test-vectors') as { input: string; sha256: string }[];

// Group searchers that hash no message: AVX2 and AVX-512 only pay off with a lane per candidate.
const searchersOnly = backendInfo().kernels.filter((k) => k === 'avx2' || k.startsWith('avx512'));
it.runIf(searchersOnly.length > 0).each(searchersOnly)('the %s kernel, a group searcher only, refuses to hash a message', (kernel) => {
  expect(() => sha256(new Uint8Array(3), { kernel })).toThrow(RangeError);
  expect(() => sha256(new Uint8Array(3), { kernel })).toThrow(new RegExp(`^kernel '${kernel}' only searches proof-of-work groups`));
});

// Every kernel named in the native dispatch tables, read from the source: each is a name sha256() knows (hashed,
// or refused as unusable here or as a searcher), and only a name in none of them is a slip, said as one.
it('knows every kernel the native tables name, and says a name in none of them is not a kernel', () => {
  const dispatch = readFileSync(fileURLToPath(new URL('../native/sha256/dispatch.cc', import.meta.url)), 'utf8');
  const names = [...new Set([...dispatch.matchAll(/\.name = "([a-z0-9-]+)"/g)].map((m) => m[1]!))];
  expect(names.length).toBeGreaterThanOrEqual(7);
  for (const kernel of names) {
    try {
      expect(hex(sha256(new TextEncoder().encode('abc'), { kernel }))).toBe(nodeSha256Hex('abc'));
    } catch (err) {
      expect((err as Error).message, kernel).toMatch(new RegExp(`^kernel '${kernel}' (only searches|is not usable on this machine|is unavailable)`));
    }
  }
  expect(() => sha256(new Uint8Array(3), { kernel: 'foo' })).toThrow(/^kernel must be one of 'js', 'scalar', .* \(got "foo"\)$/);
  expect(() => sha256(new Uint8Array(3), { kernel: 7 as unknown as string })).toThrow(TypeError);
  expect(() => sha256(new Uint8Array(3), { kernel: 7 as unknown as string })).toThrow(/^kernel must be one of 'js', .* \(got 7\)$/);
});

// The kernel tests below iterate backendInfo().kernels; this makes sure a CPU
// that has the instructions really runs its kernel there, not a silent skip.
it.runIf(backendInfo().backend === 'native')('every kernel the CPU has the instructions for is usable', () => {
  const { kernels, refused } = backendInfo();
  const cpu = native()!.backendInfo().cpu;
  for (const r of refused) expect(r).toMatch(/: CPU lacks /);
  if (cpu.avx512f) expect(kernels).toEqual(expect.arrayContaining(['avx512', 'avx512-lean', 'avx512-spare']));
  if (cpu.shaNi) expect(kernels).toEqual(expect.arrayContaining(['sha-ni', 'sha-ni-x5']));
  if (cpu.avx2) expect(kernels).toContain('avx2');
});

describe.each(kernels)('sha256 kernel %s', (kernel) => {
  it('matches the FIPS 180 examples', () => {
    for (const [msg, digest] of FIPS) expect(hex(sha256(new TextEncoder().encode(msg), { kernel }))).toBe(digest);
  });

  it(`matches the ${nist.length} NIST short and long messages`, () => {
    expect(nist.length).toBeGreaterThan(150);
    for (const v of nist) expect(hex(sha256(new Uint8Array(Buffer.from(v.input, 'base64')), { kernel }))).toBe(v.sha256);
  });

  it('matches node:crypto on every length from 0 to 300 bytes', () => {
    const next = rng(7);
    for (let n = 0; n <= 300; n++) {
      const m = Uint8Array.from({ length: n }, () => Math.floor(next() * 256));
      expect(hex(sha256(m, { kernel }))).toBe(nodeSha256Hex(m));
    }
  });
});

describe('sha256 against other implementations', () => {
  const next = rng(99);
  const messages = [0, 55, 56, 63, 64, 119, 1000, 4099].map((n) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256)));

  it.runIf(hasCommand('python3', ['--version']))("agrees with Python's hashlib", () => {
    expect(messages.map((m) => hex(sha256(m)))).toEqual(pythonSha256Hex(messages));
  });

  it.runIf(hasCommand('openssl', ['version']))('agrees with the openssl CLI', () => {
    for (const m of messages) expect(hex(sha256(m))).toBe(opensslSha256Hex(m));
  });

  it('rejects bad arguments with typed errors', () => {
    expect(() => sha256('abc' as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => sha256(new Uint8Array(1), { kernel: 'avx512-dream' })).toThrow(RangeError);
  });

  // A transferred buffer's view reads as empty: every kernel must refuse it, not hash nothing.
  it('refuses a view of a transferred buffer with every kernel, and still hashes an empty message', () => {
    const buffer = new ArrayBuffer(8);
    const view = new Uint8Array(buffer);
    structuredClone(buffer, { transfer: [buffer] });
    for (const kernel of [undefined, 'js', ...(native() ? ['scalar'] : [])]) {
      expect(() => sha256(view, { kernel }), String(kernel)).toThrow(TypeError);
      expect(() => sha256(view, { kernel }), String(kernel)).toThrow(/^data is detached/);
      expect(hex(sha256(new Uint8Array(0), { kernel })), String(kernel)).toBe(nodeSha256Hex(''));
    }
  });
});

it.runIf(backendInfo().backend === 'native')('PoW kernels are ranked by their timing at load, scalar last, each rate reported', () => {
  const { kernels, kernelRates, sha256 } = backendInfo();
  expect(kernels[kernels.length - 1]).toBe('scalar');
  for (const k of kernels) expect(kernelRates[k]).toBeGreaterThan(0);
  // The spare copy of the avx512 code is ranked as part of it (each timed
  // word from the faster copy) and listed right after it, whatever its own rate.
  if (kernels.includes('avx512-spare')) expect(kernels[kernels.indexOf('avx512') + 1]).toBe('avx512-spare');
  const simd = kernels
    .slice(0, -1)
    .filter((k) => k !== 'avx512-spare')
    .map((k) => kernelRates[k]!);
  expect([...simd].sort((a, b) => b - a)).toEqual(simd);
  // The kernel in use is the first one (its display name carries the lane count).
  expect(sha256.startsWith(kernels[0]!.replace(/-x\d$/, ''))).toBe(true);
});

// GCC folds functions with identical bodies into one (-fipa-icf) unless told
// not to: folded, the spare copy would run the first copy's code at the same
// addresses and route around nothing (native/sha256/avx512.cc, kSpare).
const builtAddon = fileURLToPath(new URL('../build/Release/powprime.node', import.meta.url));
it.runIf(process.arch === 'x64' && existsSync(builtAddon) && hasCommand('nm', ['--version']))('the avx512-spare kernel is the avx512 code again at other addresses, every word', () => {
  const symbols = spawnSync('nm', ['-C', '-S', builtAddon], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout;
  const instances = new Map<string, { at: bigint; size: bigint }>();
  for (const m of symbols.matchAll(/^([0-9a-f]+) ([0-9a-f]+) t .*search_fixed<(\d+), false, ([01])>\(/gm)) {
    instances.set(`${m[3]}/${m[4]}`, { at: BigInt(`0x${m[1]}`), size: BigInt(`0x${m[2]}`) });
  }
  for (let word = 0; word < 14; word++) {
    const [first, spare] = [instances.get(`${word}/0`), instances.get(`${word}/1`)];
    expect(first, `word ${word}`).toBeDefined();
    expect(spare, `word ${word}`).toBeDefined();
    expect(spare!.size, `word ${word}`).toBe(first!.size);
    expect(spare!.at === first!.at, `word ${word}`).toBe(false);
  }
});
