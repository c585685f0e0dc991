import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { PowExhaustedError, closePool, solvePow, verifyPow } from '../src/index.ts';
import { describeBackends } from './helpers/backends.ts';
import { nodeSha256Hex, rng } from './helpers/oracles.ts';

afterAll(() => closePool());

describe('solvePow argument checks', () => {
  const bad: [string, unknown, unknown, typeof TypeError | typeof RangeError, RegExp][] = [
    ['difficulty not an integer', { nonce: 'n', difficulty: 2.5 }, {}, RangeError, /difficulty/],
    ['difficulty negative', { nonce: 'n', difficulty: -1 }, {}, RangeError, /difficulty/],
    ['difficulty above 64', { nonce: 'n', difficulty: 65 }, {}, RangeError, /difficulty/],
    ['difficulty a string', { nonce: 'n', difficulty: '3' }, {}, TypeError, /difficulty/],
    ['nonce not a string', { nonce: 42, difficulty: 1 }, {}, TypeError, /nonce/],
    // Its UTF-8 bytes (what is hashed) would be U+FFFD's, not the string's.
    ['nonce with a lone high surrogate', { nonce: 'ab\uD800c', difficulty: 1 }, {}, TypeError, /nonce must be well-formed Unicode \(a lone surrogate at index 2/],
    ['nonce with a lone low surrogate', { nonce: '\uDC00', difficulty: 1 }, {}, TypeError, /nonce must be well-formed Unicode/],
    ['threads below 1', { nonce: 'n', difficulty: 1 }, { threads: 0 }, RangeError, /threads/],
    ['threads fractional', { nonce: 'n', difficulty: 1 }, { threads: 1.5 }, RangeError, /threads/],
    ['unknown backend', { nonce: 'n', difficulty: 1 }, { backend: 'gpu' }, RangeError, /backend/],
    ['maxAttempts zero', { nonce: 'n', difficulty: 1 }, { maxAttempts: 0 }, RangeError, /maxAttempts/],
    ['signal not a signal', { nonce: 'n', difficulty: 1 }, { signal: {} }, TypeError, /signal/],
    ['onProgress not a function', { nonce: 'n', difficulty: 1 }, { onProgress: 1 }, TypeError, /onProgress/],
  ];
  it.each(bad)('%s', async (_name, challenge, opts, type, message) => {
    const p = solvePow(challenge as never, opts as never);
    await expect(p).rejects.toBeInstanceOf(type);
    await expect(p).rejects.toThrow(message);
  });

  it('a surrogate pair is one character and well-formed; verifyPow refuses a lone surrogate too', async () => {
    const r = await solvePow({ nonce: '\uD83D\uDE00', difficulty: 1 }, { threads: 1 });
    expect(nodeSha256Hex(Buffer.from(`\u{1F600}${r.solution}`, 'utf8'))).toMatch(/^0/);
    expect(() => verifyPow('\uD800', 1, '1')).toThrow(TypeError);
  });

  it('rejects a missing challenge', async () => {
    await expect(solvePow(undefined as never)).rejects.toBeInstanceOf(TypeError);
  });
});

describe('solvePow behaviour', () => {
  it('difficulty 0 accepts the first candidate', async () => {
    const r = await solvePow({ nonce: 'zero', difficulty: 0 });
    expect(r.counter).toBe(0n);
    expect(r.solution).toMatch(/^0+$/);
  });

  it('an already aborted signal rejects before any work', async () => {
    const c = new AbortController();
    c.abort();
    await expect(solvePow({ nonce: 'n', difficulty: 30 }, { signal: c.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reports progress with attempts and a hash rate', async () => {
    const seen: { attempts: number; hashRate: number }[] = [];
    await solvePow({ nonce: 'progress', difficulty: 64 }, { maxAttempts: 20_000_000n, backend: 'js', onProgress: (p) => seen.push(p) }).catch(() => {});
    expect(seen.length).toBeGreaterThan(0);
    for (const p of seen) {
      expect(p.attempts).toBeGreaterThan(0);
      expect(p.hashRate).toBeGreaterThan(0);
    }
  });

  it('asking for the native backend without the addon → BackendUnavailableError with the reason', () => {
    const script = `import { solvePow } from './src/index.ts';
      await solvePow({ nonce: 'n', difficulty: 1 }, { backend: 'native' }).catch((e) => console.log(e.name + ': ' + e.message));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, POWPRIME_BACKEND: 'js' },
    });
    expect(run.stdout.trim()).toBe("BackendUnavailableError: backend 'native' is unavailable: POWPRIME_BACKEND=js");
  });

  it('does not keep the process alive once the work is done', () => {
    const script = `import { solvePow } from './src/index.ts';
      const r = await solvePow({ nonce: 'exit-check', difficulty: 6 });
      console.log(r.solution);`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.error).toBeUndefined();
    expect(run.status).toBe(0);
    expect(nodeSha256Hex(`exit-check${run.stdout.trim()}`).startsWith('000000')).toBe(true);
  });
});

describe('verifyPow against node:crypto', () => {
  it('agrees on random candidates and difficulties', () => {
    const next = rng(5);
    for (let i = 0; i < 3000; i++) {
      const nonce = `v${i}-${Math.floor(next() * 1e9)}`;
      const solution = String(Math.floor(next() * 1e12));
      const hex = nodeSha256Hex(nonce + solution);
      const zeros = hex.length - hex.replace(/^0+/, '').length;
      expect(verifyPow(nonce, zeros, solution)).toBe(true);
      expect(verifyPow(nonce, zeros + 1, solution)).toBe(false);
    }
  });

  it('refuses solutions that are not 1 to 32 digits', () => {
    expect(verifyPow('n', 0, '')).toBe(false);
    expect(verifyPow('n', 0, '1'.repeat(33))).toBe(false);
    expect(verifyPow('n', 0, '12a')).toBe(false);
    expect(verifyPow('n', 0, '１２')).toBe(false);
    expect(verifyPow('n', 0, '1'.repeat(32))).toBe(true);
  });

  it('rejects bad arguments by name', () => {
    expect(() => verifyPow(1 as never, 1, '1')).toThrow(/nonce/);
    expect(() => verifyPow('n', 65, '1')).toThrow(RangeError);
    expect(() => verifyPow('n', 1, 1 as never)).toThrow(/solution/);
  });
});

describeBackends('solvePow ends', (backend) => {
  it('maxAttempts reached → PowExhaustedError', async () => {
    const err = await solvePow({ nonce: 'exhaust', difficulty: 64 }, { backend, maxAttempts: 300_000n, threads: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PowExhaustedError);
    expect((err as PowExhaustedError).limit).toBe(300_000n);
    expect((err as PowExhaustedError).attempts).toBe(300_000);
  });

  it('an AbortSignal stops the search and rejects with its reason', async () => {
    const controller = new AbortController();
    const reason = new Error('stop now');
    let lastAttempts = 0;
    const p = solvePow(
      { nonce: 'cancel-me', difficulty: 20 },
      {
        backend,
        signal: controller.signal,
        onProgress: (pr) => {
          lastAttempts = pr.attempts;
          controller.abort(reason);
        },
      },
    );
    await expect(p).rejects.toBe(reason);
    expect(lastAttempts).toBeGreaterThan(0);
  });
});
