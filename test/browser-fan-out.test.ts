// The browser fan-out's ordering guarantee (src/browser/fan-out.ts), with
// scripted stand-ins for Web Workers whose answers arrive in an order the test
// chooses: a hit found early in a high chunk must not win over a lower one
// that comes back later, and the search must wait for every chunk below its
// answer. The real workers are exercised in test/browser.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WorkerSearch } from '../src/browser/fan-out.ts';
import type { FromWorker, ToWorker } from '../src/browser/protocol.ts';

/** Counters that "meet the difficulty" in this script. */
let hits: bigint[] = [];
/** Delay (ms) before the chunk starting at a counter is answered; a worker answers its chunks in order. */
let delay: (start: bigint) => number = () => 0;
const started: FakeWorker[] = [];

class FakeWorker {
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: ((event: { message?: string; preventDefault(): void }) => void) | null = null;
  terminated = false;
  chunks: bigint[] = [];
  private busyUntil = Promise.resolve();

  constructor() {
    started.push(this);
  }

  postMessage(message: unknown): void {
    const m = message as ToWorker;
    const answer = (data: FromWorker) => !this.terminated && this.onmessage?.({ data });
    if (m.type === 'start') return void queueMicrotask(() => answer({ type: 'ready', backend: 'js' }));
    this.chunks.push(m.start);
    this.busyUntil = this.busyUntil.then(
      () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            const found = hits.filter((k) => k >= m.start && k < m.end).sort((a, b) => (a < b ? -1 : 1))[0] ?? null;
            answer({ type: 'done', start: m.start, found, work: found === null ? m.end - m.start : found - m.start + 1n });
            resolve();
          }, delay(m.start)),
        ),
    );
  }

  terminate(): void {
    this.terminated = true;
  }
}

const CHUNK = 20_000n; // the js chunk size
const g = globalThis as unknown as { Worker?: unknown };
const job = (limit: bigint, threads: number) => new WorkerSearch({ nonce: 'n', difficulty: 1, choice: 'js', limit, threads, workerUrl: 'fake:' });

describe('the browser fan-out', () => {
  beforeAll(() => {
    g.Worker = FakeWorker;
  });
  afterAll(() => {
    delete g.Worker;
  });
  afterEach(() => {
    for (const w of started) expect(w.terminated).toBe(true);
    started.length = 0;
  });

  it('keeps the lowest hit when a higher chunk answers first', async () => {
    // Worker 0 holds chunks 0 and 2, worker 1 chunks 1 and 3; chunk 0 is slow and holds the lowest hit.
    hits = [3n * CHUNK + 5n, CHUNK + 7n, 19_999n];
    delay = (start) => (start === 0n ? 80 : 1);
    const r = await job(10n ** 12n, 2).run();
    expect(r.best).toBe(19_999n);
    expect(r.attempts).toBeGreaterThanOrEqual(20_000n);
  });

  it('waits for every chunk below its answer, and hands out none above it', async () => {
    hits = [5n * CHUNK + 1n];
    delay = (start) => (start === 2n * CHUNK ? 60 : 1);
    const r = await job(10n ** 12n, 3).run();
    expect(r.best).toBe(5n * CHUNK + 1n);
    // Chunks 0..5 were all searched (their work adds up to the answer's position + 1).
    expect(r.attempts).toBeGreaterThanOrEqual(5n * CHUNK + 2n);
    const handed = started.flatMap((w) => w.chunks).sort((a, b) => (a < b ? -1 : 1));
    expect(handed.slice(0, 6)).toEqual([0n, 1n, 2n, 3n, 4n, 5n].map((i) => i * CHUNK));
    // At most IN_FLIGHT (2) chunks per worker were out when the hit came back.
    expect(handed.length).toBeLessThanOrEqual(6 + 3 * 2);
  });

  it('searches up to the limit, cut mid-chunk, when nothing meets it', async () => {
    hits = [];
    delay = () => 0;
    const limit = 3n * CHUNK + 123n;
    const r = await job(limit, 4).run();
    expect(r).toEqual({ best: limit, attempts: limit, backend: 'js' });
    // No more workers than chunks.
    expect(started.length).toBe(4);
  });

  it('stop() rejects with the reason and terminates the workers', async () => {
    hits = [];
    delay = () => 5;
    const search = job(10n ** 12n, 2);
    const run = search.run();
    const reason = new Error('stop');
    setTimeout(() => search.stop(reason), 20);
    await expect(run).rejects.toBe(reason);
  });
});
