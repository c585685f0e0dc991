/**
 * The browser's fan-out: one lowest-first search of counters [0, limit) over
 * Web Workers, coordinated by the page with postMessage (a SharedArrayBuffer,
 * as Node's claim loop uses, needs a cross-origin-isolated page, which most
 * pages are not).
 *
 * Ordering guarantee (as src/pool/claim-loop.ts): the page hands out chunks in
 * increasing order and none that starts at or above the best hit so far; it
 * finishes when every chunk handed out below the best has come back. So every
 * counter below the answer was searched, whatever the thread count, and the
 * answer is the lowest one. Chunks above it still running are abandoned.
 *
 * Each worker holds up to IN_FLIGHT chunks, so it never waits a round trip to
 * the page between two of them.
 */
import { BackendUnavailableError, InternalError } from '../errors.ts';
import { CHUNK_SIZE, type BrowserBackend, type BrowserBackendChoice, type FromWorker, type ToWorker } from './protocol.ts';
import { web, type WebWorker } from './web.ts';

const IN_FLIGHT = 2;

export interface SearchJob {
  nonce: string;
  difficulty: number;
  choice: BrowserBackendChoice;
  /** Counters run from 0 up to (not including) this. */
  limit: bigint;
  threads: number;
  workerUrl: string;
}

export interface SearchOutcome {
  /** The lowest hit, or `limit` when none. */
  best: bigint;
  /** Candidates hashed by the chunks that came back. */
  attempts: bigint;
  backend: BrowserBackend;
}

interface Slot {
  worker: WebWorker;
  /** Starts of the chunks it holds, oldest first (a worker answers them in order). */
  held: bigint[];
}

export class WorkerSearch {
  /** Candidates hashed so far (what progress reports). */
  attempts = 0n;
  private best: bigint;
  private next = 0n;
  private chunk = 0n;
  private backend: BrowserBackend | undefined;
  private readonly slots: Slot[] = [];
  private ended: { outcome?: SearchOutcome; error?: unknown } | undefined;
  private settle: { resolve: (o: SearchOutcome) => void; reject: (e: unknown) => void } | undefined;

  constructor(private readonly job: SearchJob) {
    this.best = job.limit;
  }

  /** Starts the workers; settles once the lowest hit is known (or the search failed or was stopped). */
  run(): Promise<SearchOutcome> {
    const done = new Promise<SearchOutcome>((resolve, reject) => (this.settle = { resolve, reject }));
    if (!this.ended) {
      // No more workers than the smallest chunks could keep busy.
      const smallest = CHUNK_SIZE.js;
      const useful = (this.job.limit + smallest - 1n) / smallest;
      const threads = BigInt(this.job.threads) < useful ? this.job.threads : Number(useful);
      try {
        for (let i = 0; i < threads; i++) this.spawn();
      } catch (err) {
        this.end({
          error: new BackendUnavailableError(this.job.choice, `cannot start a Web Worker: ${(err as Error)?.message ?? err} (a Content-Security-Policy needs worker-src blob:, or pass workerUrl)`),
        });
      }
    }
    this.deliver();
    return done;
  }

  /** Ends the search now: run() rejects with `reason` and every worker is terminated. */
  stop(reason: unknown): void {
    this.end({ error: reason });
  }

  private spawn(): void {
    const Worker = web.Worker;
    if (!Worker) throw new Error('this environment has no Web Workers');
    const slot: Slot = { worker: new Worker(this.job.workerUrl, { name: 'powprime' }), held: [] };
    this.slots.push(slot);
    slot.worker.onmessage = (event) => this.receive(slot, event.data as FromWorker);
    slot.worker.onerror = (event) => {
      event.preventDefault();
      const why = event.message || 'its script did not load (a Content-Security-Policy without worker-src blob:, or a wrong workerUrl?)';
      this.end({ error: new BackendUnavailableError(this.job.choice, `a search worker failed: ${why}`) });
    };
    const start: ToWorker = { type: 'start', nonce: this.job.nonce, difficulty: this.job.difficulty, backend: this.job.choice };
    slot.worker.postMessage(start);
  }

  private receive(slot: Slot, m: FromWorker): void {
    if (this.ended) return;
    if (m.type === 'failed') {
      this.end({ error: m.unavailable ? new BackendUnavailableError(m.backend, m.reason) : new InternalError(`a search worker failed: ${m.reason}`) });
      return;
    }
    if (m.type === 'ready') {
      // Every worker of a page resolves the same backend; the first one sets the chunk size for the run.
      this.backend ??= m.backend;
      if (this.chunk === 0n) this.chunk = CHUNK_SIZE[this.backend];
    } else {
      if (slot.held.shift() !== m.start) {
        this.end({ error: new InternalError(`a search worker answered chunk ${m.start} out of turn`) });
        return;
      }
      this.attempts += m.work;
      if (m.found !== null && m.found < this.best) this.best = m.found;
      if (this.finished()) {
        this.end({ outcome: { best: this.best, attempts: this.attempts, backend: this.backend! } });
        return;
      }
    }
    this.feed(slot);
  }

  /** Hands `slot` the next chunks in order, none at or above the best hit. */
  private feed(slot: Slot): void {
    while (slot.held.length < IN_FLIGHT && this.next < this.best) {
      const start = this.next;
      const end = start + this.chunk < this.job.limit ? start + this.chunk : this.job.limit;
      const m: ToWorker = { type: 'chunk', start, end };
      slot.worker.postMessage(m);
      slot.held.push(start);
      this.next = end;
    }
  }

  /** Every chunk below the best was handed out and has come back. */
  private finished(): boolean {
    return this.next >= this.best && this.slots.every((s) => s.held.every((start) => start >= this.best));
  }

  private end(result: { outcome?: SearchOutcome; error?: unknown }): void {
    if (this.ended) return;
    this.ended = result;
    for (const s of this.slots) s.worker.terminate();
    this.deliver();
  }

  private deliver(): void {
    if (!this.ended || !this.settle) return;
    if (this.ended.outcome) this.settle.resolve(this.ended.outcome);
    else this.settle.reject(this.ended.error);
  }
}
