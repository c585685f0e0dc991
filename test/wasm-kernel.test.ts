/**
 * The WebAssembly SIMD128 PoW kernel: the same answers as the TS kernel on
 * every nonce layout, checked against node:crypto, through the pool threads,
 * refusing a module that computes wrong, and its committed bytes rebuilt.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { closePool, solvePow } from '../src/index.ts';
import { runOnThreads } from '../src/pool/pool.ts';
import { createShared, shared } from '../src/pool/shared-search.ts';
import { searchRangeJs } from '../src/pow/kernel.ts';
import { candidate, powLayout } from '../src/pow/order.ts';
import type { PowTask } from '../src/pow/task.ts';
import { PowTarget } from '../src/pow/target.ts';
import { POW_WASM_BASE64 } from '../src/pow/wasm-bytes.ts';
import { loadWasmKernel, powWasmBytes, searchRangeWasm, wasmKernel, wasmLoadError } from '../src/pow/wasm-kernel.ts';
import { hasNative } from './helpers/backends.ts';
import { nodeSha256Hex, rng } from './helpers/oracles.ts';

afterAll(() => closePool());

const root = join(import.meta.dirname, '..');
const next = rng(5050);
const randInt = (n: number): number => Math.floor(next() * n);

/** Random UTF-8 text of exactly `bytes` bytes: ASCII with 2-, 3- and 4-byte characters where they fit. */
function textOfBytes(bytes: number): string {
  const pools = ['abcdefghijklmnopqrstuvwxyz0123456789-_.', 'éßñ', '€中あ', '😀🙂'];
  let s = '';
  let left = bytes;
  while (left > 0) {
    const width = 1 + randInt(Math.min(4, left));
    const pool = pools[width - 1]!;
    s += [...pool][randInt([...pool].length)];
    left -= width;
  }
  expect(Buffer.byteLength(s)).toBe(bytes);
  return s;
}

const oracleMeets = (nonce: string, s: string, d: number): boolean => nodeSha256Hex(nonce + s).startsWith('0'.repeat(d));

describe('the WebAssembly kernel', () => {
  it('loads here (Node has WebAssembly SIMD128) and passed its self-test', () => {
    expect(wasmLoadError()).toBeNull();
    expect(wasmKernel()).not.toBeNull();
  });

  it('equals the TS kernel on every layout (nonce length mod 64 = 0..63, and multi-block nonces), difficulties 0..6, ranges across groups', () => {
    const lengths = [...Array.from({ length: 64 }, (_, i) => i), 64, 100, 127, 128, 200, 555, 1000];
    for (const length of lengths) {
      const nonce = textOfBytes(length);
      for (let j = 0; j < 3; j++) {
        const difficulty = (length + j) % 7;
        const target = new PowTarget(nonce, difficulty);
        // Start just before a group boundary (of 10^3 and 10^4) and run across a few of them.
        const kStart = BigInt(1000 * randInt(200) + 10_000 * randInt(3) - randInt(7) + 7);
        const kEnd = kStart + BigInt(1 + randInt(difficulty >= 5 ? 40_000 : 12_000));
        const js = searchRangeJs(target, kStart, kEnd);
        expect(searchRangeWasm(target, kStart, kEnd), `${JSON.stringify(nonce)} d=${difficulty} [${kStart}, ${kEnd})`).toBe(js);
      }
    }
  }, 120_000);

  it('equals the TS kernel on arbitrary text, difficulty and range (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 90 }),
        fc.integer({ min: 0, max: 6 }),
        fc.bigInt({ min: 0n, max: 10n ** 11n }),
        fc.integer({ min: 0, max: 15_000 }),
        (nonce, difficulty, kStart, length) => {
          const target = new PowTarget(nonce, difficulty);
          // Keep the range inside kStart's window (10^digitsInBlock counters), as the callers do.
          const windowEnd = target.window(kStart).first + target.windowSize;
          const kEnd = kStart + BigInt(length) < windowEnd ? kStart + BigInt(length) : windowEnd;
          expect(searchRangeWasm(target, kStart, kEnd)).toBe(searchRangeJs(target, kStart, kEnd));
        },
      ),
      { numRuns: 150, seed: 5050 },
    );
  }, 120_000);

  it('difficulties above 8 hex digits: no false hit where only the first word is checked, the same as the TS kernel', () => {
    for (const difficulty of [8, 9, 12, 33, 64]) {
      const target = new PowTarget('powprime high difficulty', difficulty);
      expect(searchRangeWasm(target, 0n, 30_000n)).toBe(searchRangeJs(target, 0n, 30_000n));
    }
  });

  it('counters above 2^63 (up to 10^19 - 1) cross the i64 boundary unchanged', () => {
    const target = new PowTarget('abc', 2);
    expect(target.layout.limit).toBe(10n ** 19n);
    for (const kStart of [2n ** 63n - 3000n, 10n ** 19n - 9000n]) {
      const kEnd = kStart + 9000n;
      const found = searchRangeWasm(target, kStart, kEnd);
      expect(found).not.toBeNull();
      expect(found).toBe(searchRangeJs(target, kStart, kEnd));
      expect(oracleMeets('abc', candidate(target.layout, found!), 2)).toBe(true);
    }
  });

  it('a candidate whose first digest word is zero: the full digest decides difficulties above 8', () => {
    // Found with the native backend (powprime solve "powprime wasm recheck" 8) and confirmed with python3 hashlib:
    // sha256(b'powprime wasm recheck' + b'0000000000000000000008574417890') = 00000000d86c9293…, and no other
    // counter within 5000 of it gives even 6 leading zeros.
    const nonce = 'powprime wasm recheck';
    const k = 8_574_417_890n;
    expect(nodeSha256Hex(nonce + candidate(powLayout(nonce.length), k))).toMatch(/^00000000d86c9293/);
    for (const [difficulty, want] of [
      [6, k],
      [8, k],
      [9, null],
      [64, null],
    ] as const) {
      const target = new PowTarget(nonce, difficulty);
      expect(searchRangeWasm(target, k - 5000n, k + 5000n), `d=${difficulty}`).toBe(want);
      expect(searchRangeJs(target, k - 5000n, k + 5000n), `d=${difficulty}`).toBe(want);
    }
  });

  it('the lowest k it returns meets the difficulty per node:crypto, and no lower k of the range does', () => {
    for (const length of [1, 3, 12, 43, 44, 45, 46, 47, 52, 60, 63, 64, 130]) {
      const nonce = textOfBytes(length);
      const layout = powLayout(length);
      for (const difficulty of [0, 1, 2, 3]) {
        const kStart = BigInt(randInt(3000));
        const kEnd = kStart + 12_000n;
        const found = searchRangeWasm(new PowTarget(nonce, difficulty), kStart, kEnd);
        const last = found ?? kEnd;
        for (let k = kStart; k < last; k++) expect(oracleMeets(nonce, candidate(layout, k), difficulty), `${JSON.stringify(nonce)} k=${k}`).toBe(false);
        if (found !== null) expect(oracleMeets(nonce, candidate(layout, found), difficulty)).toBe(true);
      }
    }
  }, 120_000);

  it('decodes its bytes with atob, and with its own decoder where a runtime has no atob', () => {
    const want = Buffer.from(POW_WASM_BASE64, 'base64');
    expect(Buffer.from(powWasmBytes()).equals(want)).toBe(true);
    const saved = globalThis.atob;
    try {
      delete (globalThis as { atob?: unknown }).atob;
      expect(typeof globalThis.atob).toBe('undefined');
      expect(Buffer.from(powWasmBytes()).equals(want)).toBe(true);
    } finally {
      globalThis.atob = saved;
    }
  });

  it('refuses a module that computes a wrong hash, and bytes that are not a module', () => {
    const bytes = Buffer.from(POW_WASM_BASE64, 'base64');
    // SHA-256's first round constant, little-endian in the data section: a valid module that hashes wrong.
    const k0 = Buffer.from([0x98, 0x2f, 0x8a, 0x42]);
    const at = bytes.indexOf(k0);
    expect(at).toBeGreaterThan(0);
    const corrupt = Uint8Array.from(bytes);
    corrupt[at] = corrupt[at]! ^ 1;
    const api = (globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly;
    expect(api.validate(corrupt)).toBe(true);
    expect(() => loadWasmKernel(corrupt)).toThrow(/^self-test failed: /);
    expect(() => loadWasmKernel(new Uint8Array([0, 97, 115, 109, 9, 9]))).toThrow(/refuses the module/);
    expect(loadWasmKernel(Uint8Array.from(bytes))).not.toBeNull();
  });
});

describe('the wasm backend of solvePow', () => {
  const challenges = [
    { nonce: 'wasm backend one', difficulty: 4 },
    { nonce: textOfBytes(45), difficulty: 5 },
    { nonce: textOfBytes(43), difficulty: 5 },
  ];

  it.each(challenges)(
    'pool threads on the wasm kernel (1 and 2 threads) find what the js and native backends find: %j',
    async (challenge) => {
      const js = await solvePow(challenge, { backend: 'js', threads: 1 });
      expect(oracleMeets(challenge.nonce, js.solution, challenge.difficulty)).toBe(true);
      if (hasNative) expect((await solvePow(challenge, { backend: 'native', threads: 2 })).counter).toBe(js.counter);
      for (const threads of [1, 2]) {
        // The threads' part of solvePow, from counter 0: every chunk of the answer's range runs in a pool thread.
        const s = createShared(powLayout(Buffer.byteLength(challenge.nonce)).limit);
        const task: PowTask = { kind: 'pow', ...challenge, backend: 'wasm', shared: s };
        await runOnThreads(new URL('../src/worker.ts', import.meta.url), task, threads, s);
        expect(shared.best(s), `${threads} threads`).toBe(js.counter);
      }
    },
    120_000,
  );

  it.each(challenges)(
    "solvePow({backend: 'wasm'}) with 1 and 2 threads gives the js backend's answer: %j",
    async (challenge) => {
      const js = await solvePow(challenge, { backend: 'js', threads: 1 });
      for (const threads of [1, 2]) {
        // The cast: until solvePow's options take PowBackendChoice, its type does not list 'wasm'.
        const wasm = await solvePow(challenge, { backend: 'wasm' as never, threads });
        expect(wasm).toMatchObject({ counter: js.counter, solution: js.solution, backend: 'wasm' });
      }
    },
    120_000,
  );
});

describe('scripts/build-wasm.mjs', () => {
  // Exit 2 is the script's "a tool is missing" (clang, or wasm-ld under any of its names).
  const check = spawnSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], { cwd: root, encoding: 'utf8' });
  const tools = check.status !== 2;
  if (!tools) {
    if (process.env.POWPRIME_REQUIRE_WASM_TOOLS === '1') throw new Error(`clang and wasm-ld are required here (POWPRIME_REQUIRE_WASM_TOOLS=1): ${check.stderr.trim()}`);
    process.stderr.write(`\n*** build-wasm --check SKIPPED: ${check.stderr.trim()} (apt-get install -y clang lld) ***\n\n`);
  }
  it.runIf(tools)('--check: the committed src/pow/wasm-bytes.ts and src/prime/wasm-bignum-bytes.ts are fresh builds of native/wasm/', () => {
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    expect(check.stdout).toMatch(/^build-wasm: src\/pow\/wasm-bytes\.ts is up to date \(\d+ bytes\)\nbuild-wasm: src\/prime\/wasm-bignum-bytes\.ts is up to date \(\d+ bytes\)\n$/);
  });
});
