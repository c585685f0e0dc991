// The browser build in a real headless Chromium. A copy of the package (its
// package.json and dist/browser, built by scripts/build-browser.mjs into a
// temporary folder, so the shared dist/ is left alone) is installed as
// node_modules/powprime of a throwaway project; a page importing 'powprime' is
// bundled by esbuild with the `browser` condition, served over HTTP with a CSP
// header, and solves held-out challenges (random nonces of several lengths,
// one- and two-block messages) on Web Workers. Every answer is checked against
// node:crypto (it meets the difficulty and no lower counter does) and against
// Node's solvePow. Skipped, saying why, without chromium;
// POWPRIME_REQUIRE_CHROMIUM=1 (CI) makes that a failure.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PowExhaustedError } from '../src/errors.ts';
import { candidate, powLayout } from '../src/pow/order.ts';
import { solvePow as nodeSolvePow } from '../src/pow/solve.ts';

const root = path.join(import.meta.dirname, '..');

function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser']) {
    const r = spawnSync('which', [name], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}
const chromium = findChromium();
if (!chromium && process.env.POWPRIME_REQUIRE_CHROMIUM === '1') throw new Error('chromium is required here (POWPRIME_REQUIRE_CHROMIUM=1) but is not installed (Debian: chromium)');

/** Gzipped size the browser build may add to a page, WebAssembly included. */
const SIZE_BUDGET = 60 * 1024;
/** Script CSP of the main page: what docs/browser.md asks for when the TS kernel may run. */
const CSP = "default-src 'self'; script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'; worker-src 'self' blob:";
/** The same without unsafe-eval: the TS kernel cannot run there. */
const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:";

const sha256hex = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const meets = (nonce: string, solution: string, d: number): boolean => sha256hex(nonce + solution).startsWith('0'.repeat(d));

/** A random nonce of exactly `bytes` UTF-8 bytes, now and then with a two-byte character. */
function randomNonce(bytes: number): string {
  let s = '';
  for (let room = bytes; room > 0; room = bytes - Buffer.byteLength(s)) s += room >= 2 && randomInt(8) === 0 ? 'é' : randomBytes(1).toString('base64url').charAt(0);
  return s;
}

/** What the page puts on window (test/fixtures/browser/page.js). */
interface PageApi {
  solvePow(challenge: unknown, options?: unknown): Promise<{ solution: string; counter: bigint; attempts: number; backend: string }>;
  verifyPow(nonce: string, difficulty: number, solution: string): boolean;
}

interface Answer {
  solution: string;
  counter: string;
  attempts: number;
  backend: string;
  verified: boolean;
}

describe.skipIf(!chromium)('the browser build in headless Chromium', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'powprime-browser-'));
  const pkg = path.join(tmp, 'node_modules', 'powprime');
  let server: http.Server | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let strictPage: Page;
  let base = '';
  let pageBundle = '';
  let sizeGzipped = 0;
  let verifyGzipped = 0;

  const bundle = async (entry: string, minify: boolean) => {
    copyFileSync(path.join(root, 'test/fixtures/browser', entry), path.join(tmp, entry));
    const r = await esbuild.build({
      absWorkingDir: tmp,
      entryPoints: [path.join(tmp, entry)],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['browser'],
      minify,
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    return { text: r.outputFiles[0]!.text, inputs: Object.keys(r.metafile.inputs) };
  };

  beforeAll(async () => {
    // The package as a user installs it: package.json (its exports) and the browser build.
    mkdirSync(pkg, { recursive: true });
    copyFileSync(path.join(root, 'package.json'), path.join(pkg, 'package.json'));
    execFileSync(process.execPath, [path.join(root, 'scripts/build-browser.mjs'), '--out', pkg], { stdio: 'inherit' });
    const built = await bundle('page.js', true);
    pageBundle = built.text;
    // The browser condition, not the Node entry, is what the page got.
    expect(built.inputs).toContain('node_modules/powprime/dist/browser/powprime.js');
    expect(built.inputs.filter((f) => f.includes('powprime/') && !f.endsWith('dist/browser/powprime.js'))).toEqual([]);
    sizeGzipped = gzipSync((await bundle('size-entry.js', true)).text, { level: 9 }).length;
    console.log(`browser bundle of solvePow + verifyPow (worker and its kernels inside), minified: ${(sizeGzipped / 1024).toFixed(1)} KB gzipped`);
    verifyGzipped = gzipSync((await bundle('verify-entry.js', true)).text, { level: 9 }).length;
    console.log(`browser bundle of verifyPow alone, minified: ${(verifyGzipped / 1024).toFixed(1)} KB gzipped`);

    const worker = readFileSync(path.join(pkg, 'dist/browser/powprime-worker.js'));
    const routes: Record<string, { body: string | Buffer; type: string; csp?: string }> = {
      '/': { body: '<!doctype html><script type="module" src="/page.js"></script>', type: 'text/html', csp: CSP },
      '/strict': { body: '<!doctype html><script type="module" src="/page.js"></script>', type: 'text/html', csp: STRICT_CSP },
      '/page.js': { body: pageBundle, type: 'text/javascript' },
      '/powprime-worker.js': { body: worker, type: 'text/javascript' },
    };
    server = http.createServer((req, res) => {
      const r = routes[req.url ?? ''];
      if (!r) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': r.type, ...(r.csp ? { 'content-security-policy': r.csp } : {}) }).end(r.body);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const puppeteer = await import('puppeteer-core');
    browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--headless=new', '--no-sandbox'] });
    const open = async (url: string) => {
      const p = await browser!.newPage();
      const errors: string[] = [];
      p.on('pageerror', (e) => errors.push(String(e)));
      await p.goto(url);
      await p.waitForFunction(() => 'powprime' in globalThis);
      expect(errors).toEqual([]);
      return p;
    };
    page = await open(`${base}/`);
    strictPage = await open(`${base}/strict`);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    rmSync(tmp, { recursive: true, force: true });
  });

  /** solvePow in the page; bigints come back as strings. */
  const solveIn = (p: Page, challenge: { nonce: string; difficulty: number }, options: Record<string, unknown>): Promise<Answer> =>
    p.evaluate(
      async (c, o) => {
        const api = (globalThis as unknown as { powprime: PageApi }).powprime;
        const r = await api.solvePow(c, o);
        return { solution: r.solution, counter: String(r.counter), attempts: r.attempts, backend: r.backend, verified: api.verifyPow(c.nonce, c.difficulty, r.solution) };
      },
      challenge,
      options,
    );

  /** What a call rejected with, as plain facts (or null when it resolved). */
  const failureIn = (p: Page, challenge: unknown, options: Record<string, unknown>) =>
    p.evaluate(
      async (c, o) => {
        const api = (globalThis as unknown as { powprime: PageApi }).powprime;
        try {
          await api.solvePow(c, o);
          return null;
        } catch (e) {
          const err = e as Error & { code?: string; argument?: string };
          return { name: err.name, message: err.message, code: err.code ?? null, argument: err.argument ?? null };
        }
      },
      challenge,
      options,
    );

  it(`the bundle has no Node built-ins and stays within ${SIZE_BUDGET / 1024} KB gzipped`, () => {
    expect(pageBundle.length).toBeGreaterThan(1000);
    expect(pageBundle).not.toMatch(/["']node:/);
    expect(pageBundle).not.toMatch(/\brequire\(/);
    expect(pageBundle).not.toMatch(/piscina|worker_threads/);
    expect(sizeGzipped).toBeGreaterThan(1000);
    expect(sizeGzipped).toBeLessThanOrEqual(SIZE_BUDGET);
  });

  // A page bundles what it imports: nothing at the build's top level (a keep-names wrapper's calls, say) may
  // hold the worker and the kernels in a page that only checks solutions.
  it('a page that imports verifyPow alone gets neither the worker nor the kernels', () => {
    expect(verifyGzipped).toBeGreaterThan(500);
    expect(verifyGzipped).toBeLessThan(sizeGzipped / 4);
  });

  // Byte lengths: one block; 43/44 (the layouts either side of the 12-digit rule); 56..63
  // (digits spill into a second block); and nonces of one or two whole blocks and more.
  const lengths = [randomInt(1, 30), 43, 44, randomInt(45, 56), randomInt(56, 64), randomInt(64, 108), randomInt(108, 128), randomInt(128, 200)];
  const configs = [
    { threads: 2, backend: 'js' },
    { threads: 1, backend: 'auto' },
    { threads: 1, backend: 'js' },
    { threads: 2, backend: 'auto' },
    { threads: 2, backend: 'wasm' },
  ];
  const cases = lengths.flatMap((bytes, i) => [0, 1].map((j) => ({ bytes, options: configs[(i + j) % configs.length]! })));

  it.each(cases)('solves a held-out $bytes-byte nonce with $options as node:crypto and Node do', async ({ bytes, options }) => {
    const challenge = { nonce: randomNonce(bytes), difficulty: randomInt(3, 5) };
    const got = await solveIn(page, challenge, options);
    const { nonce, difficulty } = challenge;
    // node:crypto: S meets the difficulty, it is S_k of the canonical order, and no lower counter meets it.
    expect(meets(nonce, got.solution, difficulty)).toBe(true);
    const counter = BigInt(got.counter);
    const layout = powLayout(Buffer.byteLength(nonce));
    expect(got.solution).toBe(candidate(layout, counter));
    for (let k = 0n; k < counter; k++) if (meets(nonce, candidate(layout, k), difficulty)) expect.fail(`counter ${k} below ${counter} meets the difficulty`);
    // Node's answer (the TS backend on its thread pool) is the same.
    const node = await nodeSolvePow(challenge, { backend: 'js', threads: 2 });
    expect({ solution: got.solution, counter }).toEqual({ solution: node.solution, counter: node.counter });
    expect(got.attempts).toBeGreaterThanOrEqual(Number(counter) + 1);
    expect(got.verified).toBe(true);
    // Chromium has WebAssembly SIMD128, so 'auto' is the WASM kernel there.
    expect(got.backend).toBe(options.backend === 'js' ? 'js' : 'wasm');
  });

  it('verifyPow agrees with node:crypto, and refuses what is not 1–32 digits', async () => {
    const nonce = randomNonce(randomInt(1, 150));
    const solutions = Array.from({ length: 64 }, () => String(randomInt(0, 2 ** 47)).padStart(randomInt(1, 20), '0'));
    const got = await page.evaluate(
      (n, list) => {
        const api = (globalThis as unknown as { powprime: PageApi }).powprime;
        return { one: list.map((s) => api.verifyPow(n, 1, s)), zero: ['12a', '', '1'.repeat(33)].map((s) => api.verifyPow(n, 0, s)) };
      },
      nonce,
      solutions,
    );
    const want = solutions.map((s) => meets(nonce, s, 1));
    // About one in 16 meets difficulty 1: both verdicts occur.
    expect(new Set(want).size).toBe(2);
    expect(got.one).toEqual(want);
    expect(got.zero).toEqual([false, false, false]);
  });

  it('an AbortSignal rejects with its reason and ends the workers', async () => {
    await page.evaluate(() => {
      const g = globalThis as unknown as { powprime: PageApi; run: unknown; stop: () => void };
      const ac = new AbortController();
      const reason = new Error('stopped by the test');
      g.stop = () => ac.abort(reason);
      g.run = g.powprime.solvePow({ nonce: 'never solved in time', difficulty: 14 }, { threads: 2, backend: 'js', signal: ac.signal }).then(
        () => 'resolved',
        (e: unknown) => (e === reason ? 'the reason' : `another error: ${e}`),
      );
    });
    // Both workers run before the abort.
    await expect.poll(() => page.workers().length, { timeout: 10_000 }).toBe(2);
    await page.evaluate(() => (globalThis as unknown as { stop: () => void }).stop());
    expect(await page.evaluate(() => (globalThis as unknown as { run: Promise<string> }).run)).toBe('the reason');
    await expect.poll(() => page.workers().length, { timeout: 10_000 }).toBe(0);
    // An already aborted signal starts nothing.
    const pre = await page.evaluate(async () => {
      const api = (globalThis as unknown as { powprime: PageApi }).powprime;
      const reason = new Error('early');
      return api.solvePow({ nonce: 'x', difficulty: 1 }, { signal: AbortSignal.abort(reason) }).then(
        () => 'resolved',
        (e: unknown) => (e === reason ? 'the reason' : `another error: ${e}`),
      );
    });
    expect(pre).toBe('the reason');
  });

  it('reports progress while it runs, at most 4 times a second', async () => {
    // Stopped after the third report that counts some work (or 20 s of none), so the test waits for
    // reports rather than for an amount of work.
    const got = await page.evaluate(async (n) => {
      const api = (globalThis as unknown as { powprime: PageApi }).powprime;
      const events: { attempts: number; hashRate: number; at: number }[] = [];
      const ac = new AbortController();
      const t0 = performance.now();
      const run = api.solvePow(
        { nonce: n, difficulty: 14 },
        {
          threads: 2,
          backend: 'js',
          signal: ac.signal,
          onProgress: (p: { attempts: number; hashRate: number }) => {
            events.push({ ...p, at: performance.now() - t0 });
            if ((events.length >= 3 && p.attempts > 0) || events.length === 80) ac.abort();
          },
        },
      );
      const outcome = await run.then(
        () => 'resolved',
        (e: Error) => e.name,
      );
      return { outcome, events, elapsed: performance.now() - t0 };
    }, randomNonce(40));
    expect(got.outcome).toBe('AbortError');
    const { events, elapsed } = got;
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.length).toBeLessThanOrEqual(Math.floor(elapsed / 250) + 1);
    expect(events.at(-1)!.attempts).toBeGreaterThan(0);
    for (const [i, e] of events.entries()) {
      if (i > 0) expect(e.attempts).toBeGreaterThanOrEqual(events[i - 1]!.attempts);
      // hashRate is attempts per second of the run so far (the two clocks start within a millisecond).
      if (e.attempts > 0) expect(Math.abs((e.hashRate * e.at) / 1000 / e.attempts - 1)).toBeLessThan(0.05);
    }
  });

  it.each([100_000, 40_001n])('stops at maxAttempts %s with PowExhaustedError as Node does', async (maxAttempts) => {
    const nonce = randomNonce(30);
    const got = await page.evaluate(
      async (n, max) => {
        const api = (globalThis as unknown as { powprime: PageApi }).powprime;
        try {
          await api.solvePow({ nonce: n, difficulty: 12 }, { threads: 2, backend: 'js', maxAttempts: typeof max === 'string' ? BigInt(max) : max });
          return null;
        } catch (e) {
          const err = e as Error & { code?: string; attempts?: number; limit?: bigint };
          return { code: err.code, name: err.name, attempts: err.attempts, limit: String(err.limit) };
        }
      },
      nonce,
      typeof maxAttempts === 'bigint' ? String(maxAttempts) : maxAttempts,
    );
    // Node gives up alike (a hit of 12 zeros among 10^5 candidates has odds of 4e-10).
    const node = await nodeSolvePow({ nonce, difficulty: 12 }, { backend: 'js', maxAttempts }).catch((e: unknown) => e);
    expect(node).toBeInstanceOf(PowExhaustedError);
    expect(got).toEqual({ code: 'ERR_POW_EXHAUSTED', name: 'PowExhaustedError', attempts: Number(maxAttempts), limit: String(maxAttempts) });
    expect(got!.attempts).toBe((node as PowExhaustedError).attempts);
  });

  it('checks its arguments as Node does', async () => {
    for (const [challenge, options] of [
      [{ nonce: '', difficulty: 3 }, {}],
      [{ nonce: 'a', difficulty: 65 }, {}],
      [{ nonce: 'a', difficulty: 3 }, { threads: 0 }],
      [{ nonce: 'a', difficulty: 3 }, { maxAttempts: 0 }],
    ] as const) {
      const node = await nodeSolvePow(challenge, options).then(
        () => null,
        (e: Error & { argument?: string }) => ({ name: e.name, message: e.message, argument: e.argument }),
      );
      expect(node).not.toBeNull();
      expect(await failureIn(page, challenge, options)).toEqual({ ...node, code: null });
    }
    expect(await failureIn(page, { nonce: 'a', difficulty: 3 }, { thread: 2 })).toMatchObject({
      name: 'TypeError',
      argument: 'options.thread',
      message: expect.stringContaining('did you mean threads?'),
    });
    expect(await failureIn(page, { nonce: 'a', difficulty: 3 }, { backend: 'native' })).toMatchObject({ name: 'RangeError', argument: 'backend' });
  });

  it('runs from a worker file the site serves (workerUrl) with the same answer', async () => {
    const challenge = { nonce: randomNonce(70), difficulty: 3 };
    const got = await solveIn(page, challenge, { threads: 2, backend: 'js', workerUrl: `${base}/powprime-worker.js` });
    const node = await nodeSolvePow(challenge, { backend: 'js', threads: 1 });
    expect({ solution: got.solution, counter: BigInt(got.counter) }).toEqual({ solution: node.solution, counter: node.counter });
    expect(meets(challenge.nonce, got.solution, 3)).toBe(true);
  });

  it("under a CSP without unsafe-eval the TS kernel is BackendUnavailableError and 'auto' runs the WASM kernel", async () => {
    const challenge = { nonce: randomNonce(20), difficulty: 3 };
    expect(await failureIn(strictPage, challenge, { backend: 'js' })).toMatchObject({
      name: 'BackendUnavailableError',
      code: 'ERR_BACKEND_UNAVAILABLE',
      message: expect.stringContaining('Content-Security-Policy'),
    });
    const got = await solveIn(strictPage, challenge, { threads: 1 });
    expect(got.backend).toBe('wasm');
    const node = await nodeSolvePow(challenge, { backend: 'js', threads: 1 });
    expect({ solution: got.solution, counter: BigInt(got.counter) }).toEqual({ solution: node.solution, counter: node.counter });
  });
});
