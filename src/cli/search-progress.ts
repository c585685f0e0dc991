/**
 * What `powprime search` shows while it runs: a bar on a terminal (with the
 * queue's chunks and workers in queue mode), or JSON ticks under
 * --progress=json, and notice lines that do not break the bar.
 */
import { SingleBar } from 'cli-progress';
import { DEFAULT_QUEUE_NAME, type QueueTarget } from '../queue/connection.ts';
import { plural } from './plural.ts';
import { progressEvent, progressMode } from './progress-mode.ts';
import { CountPace, formatEta } from './time-left.ts';

export interface SearchProgressOptions {
  target: QueueTarget | null;
  /** --queue and --queue-name as given, for the hint that starts a worker. */
  queue?: string;
  queueName: string;
  /** Primes this process is to have in all, and how many earlier runs found. */
  wanted: number;
  earlier: number;
  /** What the bar counts (default "safe primes"). */
  label?: string;
  /**
   * Fermat tests the search expects a prime to take (src/prime/expectation.ts):
   * the bar then states the tests left and their time at the test rate
   * measured so far, instead of extrapolating from the primes found.
   */
  testsPerPrime?: number;
  /** Fields every JSON tick carries besides its own (moduli: the size it is of). */
  tickFields?: Record<string, unknown>;
}

/** The bar's tokens: kept here, so a notice line (which restarts the bar beneath it) loses none of them. */
type Tokens = { rate: string; etaText: string; queueText: string; held: number; workers: number; candidateRate: number };

export class SearchProgress {
  /** Primes found by this run. */
  found = 0;
  /** Fermat tests this run has made (with testsPerPrime). */
  tests = 0;
  readonly started = performance.now();
  private readonly bar: SingleBar | null;
  /** Queue mode with no live worker: nothing runs until one is started, so the bar says how. */
  private readonly startHint: string;
  private readonly tokens: Tokens = { rate: '-', etaText: 'ETA -', queueText: '0 chunks running | 0 workers', held: 0, workers: 0, candidateRate: 0 };
  private readonly lastTick = { done: -1, at: 0 };
  private readonly testPace = new CountPace();

  constructor(private readonly o: SearchProgressOptions) {
    const { target } = o;
    this.bar =
      progressMode() === 'bar'
        ? new SingleBar({
            // What is left before the rate, and the bar as wide as the terminal leaves room for: a
            // terminal cuts the line's end off, and an 80-column one lost the time left.
            format: `${o.label ?? 'safe primes'} {bar} {value}/{total} | ${target ? '{queueText} | {rate} | {etaText}' : '{etaText} | {rate}'}`,
            // 72 columns hold search's text; a longer label and the tests' text (about 30 more) take theirs from the bar.
            barsize: Math.max(8, Math.min(40, (process.stderr.columns ?? 80) - 72 - Math.max(0, (o.label ?? 'safe primes').length - 11) - (o.testsPerPrime === undefined ? 0 : 30))),
            hideCursor: true,
            // Drawn again even when unchanged: print() clears the bar's line, and it must come back at once.
            forceRedraw: true,
            // progressMode() has decided the bar is wanted (--progress=bar draws it even when piped, as
            // solve's and dhparam's status line is): cli-progress must not drop it off a terminal.
            // There it writes the bar as a line at start, every 2 s and at the end; clearOnComplete, which
            // only clears a terminal's line, keeps it from adding an empty line after the last.
            noTTYOutput: true,
            clearOnComplete: !process.stderr.isTTY,
            stream: process.stderr,
          })
        : null;
    this.startHint = target ? `start one: powprime worker --queue ${o.queue}${o.queueName !== DEFAULT_QUEUE_NAME ? ` --queue-name ${o.queueName}` : ''}` : '';
    this.bar?.start(o.wanted, o.earlier, this.tokens);
  }

  /** Updates the bar with `t` and sends a JSON tick when one is due. */
  readonly show = (t: Partial<Tokens>): void => {
    const { target, wanted } = this.o;
    const { tokens, found, lastTick } = this;
    Object.assign(tokens, t);
    if (target) tokens.queueText = `${plural(tokens.held, 'chunk')} running | ${tokens.workers ? plural(tokens.workers, 'worker') : `0 workers (${this.startHint})`}`;
    const done = this.o.earlier + found;
    const elapsedMs = performance.now() - this.started;
    // Known once a prime is in: the time per prime so far times the primes still wanted.
    const perPrimeMs = found ? elapsedMs / found : null;
    const { testsPerPrime } = this.o;
    // With the search's expectation: each prime still wanted is expected to take testsPerPrime tests
    // (a geometric wait has no memory, so tests already spent on them do not shorten it).
    const testsLeft = testsPerPrime === undefined ? null : (wanted - done) * testsPerPrime;
    const testRate = this.testPace.perSecond(this.tests);
    const etaMs = testsLeft !== null ? (testRate ? Math.round((testsLeft / testRate) * 1000) : null) : perPrimeMs === null ? null : Math.round(perPrimeMs * (wanted - done));
    // The tests already run are said too: the expectation alone stays the same while the wait goes on, and a bar that never moves looks stuck.
    if (testsLeft !== null) tokens.etaText = testsText(this.tests, testsLeft, etaMs, elapsedMs);
    else tokens.etaText = etaMs === null ? 'ETA -' : `ETA ${formatEta(etaMs)}`;
    this.bar?.update(done, tokens);
    // Queue mode polls five times a second: a JSON tick when a prime is in, else at most one a second.
    const now = performance.now();
    if (done === lastTick.done && now - lastTick.at < 1000) return;
    Object.assign(lastTick, { done, at: now });
    progressEvent({
      ...this.o.tickFields,
      done,
      total: wanted,
      rate: perPrimeMs === null ? null : 1000 / perPrimeMs,
      etaMs,
      ...(testsLeft !== null ? { testsRun: this.tests, expectedTestsLeft: Math.round(testsLeft), testsPerSecond: testRate } : {}),
      ...(target ? { chunksRunning: tokens.held, workers: tokens.workers, candidatesPerSecond: Math.round(tokens.candidateRate) } : {}),
    });
  };

  /** One `powprime: …` line on stderr, the bar restarted beneath it. */
  readonly notice = (message: string): void => {
    this.bar?.stop();
    process.stderr.write(`powprime: ${message}\n`);
    this.bar?.start(this.o.wanted, this.o.earlier + this.found, this.tokens);
  };

  /**
   * A result line on stdout. When stdout is the bar's terminal too, the bar's
   * line is cleared first and drawn again beneath, and the terminal's line
   * wrap (which the bar turns off while it runs) is on while the line is
   * written, so a prime longer than the screen is not cut off. The cursor
   * is saved again where the bar now is: cli-progress returns it to the
   * saved place when it stops, which would be above these lines. A bar
   * drawn to a pipe (--progress=bar) gets none of these control codes.
   */
  readonly print = (line: string): void => {
    if (!this.bar || !process.stdout.isTTY || !process.stderr.isTTY) {
      process.stdout.write(line);
      return;
    }
    process.stderr.write('\r\x1b[2K\x1b[?7h');
    process.stdout.write(line);
    process.stderr.write('\x1b7\x1b[?7l');
    this.bar.render();
  };

  stop(): void {
    this.bar?.stop();
  }
}

/** 950, 12.3k, 4.1M: a count at a glance. */
function formatCount(n: number): string {
  if (n < 1e4) return String(Math.round(n));
  return n < 1e6 ? `${(n / 1e3).toFixed(1)}k` : `${(n / 1e6).toFixed(1)}M`;
}

/**
 * The bar's text with the search's expectation. Tests are counted a slice at
 * a time, after the sieve's setup (some 30 s at 8192 bits, or for a large
 * batch): until the first count the line says the run is starting, and for
 * how long, rather than `0 tests run` standing still.
 */
export function testsText(tests: number, testsLeft: number, etaMs: number | null, elapsedMs: number): string {
  if (tests === 0) return `starting (${formatEta(elapsedMs)}), expected ${formatCount(testsLeft)} tests`;
  return `${formatCount(tests)} tests run, expected ${formatCount(testsLeft)} more${etaMs === null ? '' : ` ≈ ${formatEta(etaMs)}`}`;
}
