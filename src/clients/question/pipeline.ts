/**
 * The question service's recommended topology: a prompt queue (config,
 * proof of work, query) and an answer queue (polled with the answers route),
 * both persisted so that a crash or kill -9 loses nothing. One scheduler runs
 * both queues: it always performs the action whose rate-limit slot comes
 * first, so waiting a day for the query budget never holds up answer checks,
 * and neither ever waits inside a call. Items that keep failing are retried
 * with backoff and dropped after `maxFailures` with the reason recorded.
 *
 * Answers are written by people, so checking at once only spends budget: a
 * question is first checked `firstCheckAfterMs` after it was posted, then
 * again after a quarter of its age (at least 1.1 minutes, at most
 * `maxCheckIntervalMs`), so an answer is seen soon after it appears while
 * long waits cost few calls. One or two questions due are asked for by the
 * single-answer route (1/min, no hourly cap); more go in one call of the
 * answers route (8 an hour), unless that budget is spent for the hour.
 *
 * Prompts are keyed by a hash of their text, so an edited prompt is a new
 * one. Answers stay in the state file once delivered, so a new output can be
 * given every answer known. An unreachable service (refused, no such host,
 * TLS) stops the run with its NetworkError instead of counting against the
 * items: an outage is not a reason to drop a prompt.
 *
 * Each pipeline works from its own copy of the state, so two on one state
 * file would post every prompt twice (the service allows 16 a day): a
 * pipeline holds the file's lock from its constructor until run() ends
 * (or close()), and another one on the file is refused at once.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { FileLockedError } from '../../errors.ts';
import { lockHolderText, tryLock, type FileLock } from '../../fs/file-lock.ts';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import { readJsonState, type ShapeCheck } from '../http/state-file.ts';
import { BadRequestError, NetworkError, RateLimitedError } from '../errors.ts';
import type { ItemError, QuestionClient, ThreadItem } from './client.ts';
import { DAY, HOUR, MINUTE } from '../http/rate-limiter.ts';
import { checkOptionKeys, optionNames } from '../../validate.ts';
import { makeFolderSync } from '../../fs/make-folder.ts';

/** The spec's advice: slightly longer than the per-minute limit. */
const MIN_CHECK_INTERVAL_MS = 1.1 * MINUTE;
/** Up to this many questions due are checked one by one on the single-answer route. */
const SINGLE_ROUTE_MAX = 2;
/** firstCheckAfterMs when not given. */
const DEFAULT_FIRST_CHECK_MS = 5 * MINUTE;

export interface PromptItem {
  key: string;
  prompt: string;
  failures: number;
  lastError?: string;
  notBefore: number;
  /** Set just before the POST: after a crash the prompt is posted again rather than lost. */
  posting?: boolean;
}

export interface AwaitingItem {
  key: string;
  prompt: string;
  id: string;
  postedAt: number;
  /**
   * Checks made so far (answered not yet, or failed). While 0 the first check is at postedAt plus the
   * firstCheckAfterMs of the pipeline running now, not of the one that posted it. Absent in state
   * saved by versions that did not count them (see load()).
   */
  checks?: number;
  failures: number;
  lastError?: string;
  notBefore: number;
}

/** An answer received but not yet delivered (its line written, its files saved); kept until it is. */
export interface DeliveringItem {
  key: string;
  prompt: string;
  id: string;
  thread: ThreadItem;
  failures: number;
  lastError?: string;
  notBefore: number;
}

/** What the caller does with an answer; it must be idempotent: after a crash it runs again. */
export type Deliver = (answer: { key: string; prompt: string; thread: ThreadItem; lastAttempt: boolean }) => Promise<void> | void;

/** An answer delivered. `prompt` and `thread` are absent in entries saved by versions that did not keep them. */
export interface AnsweredItem {
  key: string;
  id: string;
  at: number;
  prompt?: string;
  thread?: ThreadItem;
}

export interface DroppedItem {
  key: string;
  prompt: string;
  id?: string;
  reason: string;
  at: number;
}

interface State {
  prompts: PromptItem[];
  awaiting: AwaitingItem[];
  delivering: DeliveringItem[];
  answered: AnsweredItem[];
  dropped: DroppedItem[];
}

const LISTS = ['prompts', 'awaiting', 'delivering', 'answered', 'dropped'] as const;

/** The state file's shape: the five lists, each of objects with a string key (and a string prompt where one is kept). */
const stateShape: ShapeCheck = (v) => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'is not a JSON object';
  for (const name of LISTS) {
    const list = (v as Record<string, unknown>)[name];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return `has a ${name} that is not a list`;
    const bad = list.findIndex((i: unknown) => {
      const o = i as Record<string, unknown> | null;
      if (o === null || typeof o !== 'object' || typeof o.key !== 'string') return true;
      if (name !== 'answered' && typeof o.prompt !== 'string') return true;
      return (name === 'awaiting' || name === 'delivering' || name === 'answered') && typeof o.id !== 'string';
    });
    if (bad >= 0) return `has ${name} entry ${bad + 1} without its key, prompt or id`;
  }
  return undefined;
};

/** The key of a prompt: a hash of its text. */
export function promptKey(prompt: string): string {
  return createHash('sha256').update(prompt).digest('hex').slice(0, 16);
}

/**
 * The file a pipeline keeps its queues in: `pipeline-<host>.json` in `stateDir`, per the client's
 * host; for the client's default host, a `pipeline.json` of an earlier version while that does not exist.
 */
export function pipelineFile(client: QuestionClient, stateDir: string): string {
  return client.hostFile('pipeline.json', { legacy: true, dir: stateDir });
}

export interface PipelineOptions {
  client: QuestionClient;
  /** Where the queues are kept (a file `pipeline-<host>.json` inside: see pipelineFile). */
  stateDir: string;
  /** Attempts before an item is dropped (default 5). */
  maxFailures?: number;
  /** First retry delay after a failure, doubled each time (default 1 minute). */
  backoffMs?: number;
  /** The first check of a question, after it is posted (default 5 minutes: a person has to write the answer). */
  firstCheckAfterMs?: number;
  /** The longest gap between two checks of a question (default 1.1 hours, the spec's hourly advice); below 1.1 minutes only against a server without limits. */
  maxCheckIntervalMs?: number;
  /** An unanswered question is dropped after this long (default 7 days). */
  giveUpAfterMs?: number;
  /**
   * Delivers an answer (writes it, fetches its files). An answer counts as
   * answered only once this resolves; until then it is kept in the state
   * file and delivered again after a crash. A rejection is retried with
   * backoff; the last attempt is flagged so the caller can record what is
   * still missing instead of failing again.
   */
  deliver?: Deliver;
}

/** Every key of PipelineOptions: any other is refused (a misspelled one would be ignored). */
export const PIPELINE_OPTIONS = optionNames<PipelineOptions>()(['client', 'stateDir', 'maxFailures', 'backoffMs', 'firstCheckAfterMs', 'maxCheckIntervalMs', 'giveUpAfterMs', 'deliver']);

export interface PipelineEvents {
  posted: [{ key: string; prompt: string; id: string }];
  answered: [{ key: string; prompt: string; thread: ThreadItem }];
  dropped: [DroppedItem];
  waiting: [{ until: number; action: 'post' | 'check' | 'deliver' }];
  failed: [Error];
}

type Listener<E extends keyof PipelineEvents> = (...args: PipelineEvents[E]) => void;

export class QuestionPipeline {
  // Composed, not inherited: the published declarations name no Node type, so
  // they compile where Node's types are not loaded (TypeScript 7's default).
  private readonly events = new EventEmitter<PipelineEvents>();
  private state: State = { prompts: [], awaiting: [], delivering: [], answered: [], dropped: [] };
  private readonly file: string;
  private readonly client: QuestionClient;
  private readonly maxFailures: number;
  private readonly backoffMs: number;
  private readonly firstCheckMs: number;
  private readonly maxIntervalMs: number;
  private readonly giveUpMs: number;
  private readonly deliver: Deliver | undefined;
  private signal: AbortSignal | undefined;
  private lock: FileLock | null = null;

  constructor(opts: PipelineOptions) {
    if (opts === null || typeof opts !== 'object') throw new TypeError('options must be an object with {client, stateDir}');
    checkOptionKeys('options', opts, 'QuestionPipeline', PIPELINE_OPTIONS);
    if (typeof opts.stateDir !== 'string' || opts.stateDir === '') throw new TypeError('stateDir must be a folder path');
    if (opts.deliver !== undefined && typeof opts.deliver !== 'function') throw new TypeError('deliver must be a function');
    this.deliver = opts.deliver;
    this.client = opts.client;
    this.file = pipelineFile(opts.client, opts.stateDir);
    this.maxFailures = opts.maxFailures ?? 5;
    this.backoffMs = opts.backoffMs ?? MINUTE;
    this.firstCheckMs = opts.firstCheckAfterMs ?? DEFAULT_FIRST_CHECK_MS;
    this.maxIntervalMs = opts.maxCheckIntervalMs ?? 1.1 * HOUR;
    this.giveUpMs = opts.giveUpAfterMs ?? 7 * DAY;
    this.hold();
  }

  /**
   * Takes the state file's lock (beside it, named like it with .lock) and reads
   * the state, unless held already. After a release the state is read again:
   * another pipeline may have run on it meanwhile. Throws FileLockedError
   * when another holder has it.
   */
  private hold(): void {
    if (this.lock) return;
    makeFolderSync(path.dirname(this.file), 0o700);
    const lockFile = this.file.replace(/\.json$/, '.lock');
    this.lock = tryLock(lockFile, this.file);
    if (!this.lock) throw new FileLockedError(this.file, lockHolderText(lockFile), false);
    try {
      this.load();
    } catch (err) {
      this.close();
      throw err;
    }
  }

  private load(): void {
    const saved = readJsonState(this.file, 'set-aside', stateShape) as Partial<State> | undefined;
    if (!saved) return;
    this.state = { prompts: [], awaiting: [], delivering: [], answered: [], dropped: [], ...saved };
    for (const p of this.state.prompts) {
      if (p.posting) {
        p.posting = false;
        p.lastError = 'interrupted while posting; posted again (the question may appear twice)';
      }
    }
    for (const a of this.state.awaiting) {
      // Saved before checks were counted: a question never checked has its first check at most the
      // default firstCheckAfterMs after posting, and one checked since is past that by at least
      // MIN_CHECK_INTERVAL_MS (unless its first check came sooner, when at worst one check moves).
      a.checks ??= a.failures === 0 && a.notBefore - a.postedAt <= DEFAULT_FIRST_CHECK_MS ? 0 : 1;
      // A question not checked yet is first checked firstCheckAfterMs after posting as this pipeline
      // has it: a rerun with another first check applies it to the questions posted before.
      if (a.checks === 0) a.notBefore = a.postedAt + this.firstCheckMs;
    }
  }

  /** Calls `listener` on each `event` (PipelineEvents lists them and their arguments). */
  on<E extends keyof PipelineEvents>(event: E, listener: Listener<E>): this {
    this.events.on(event, listener as never);
    return this;
  }

  /** Calls `listener` on the next `event` only. */
  once<E extends keyof PipelineEvents>(event: E, listener: Listener<E>): this {
    this.events.once(event, listener as never);
    return this;
  }

  /** Stops calling a listener given to on() or once(). */
  off<E extends keyof PipelineEvents>(event: E, listener: Listener<E>): this {
    this.events.off(event, listener as never);
    return this;
  }

  /** Lets go of the state file's lock (run() does when it ends); using the pipeline again takes it back. A second call does nothing. */
  close(): void {
    this.lock?.release();
    this.lock = null;
  }

  private save(): void {
    writeFileAtomic(this.file, JSON.stringify(this.state));
  }

  /**
   * Queues a prompt (saved before returning). `key` identifies it across runs
   * (default: promptKey(prompt), a hash of its text); a key already known is not queued again.
   */
  enqueue(prompt: string, key?: string): string {
    if (typeof prompt !== 'string' || prompt.trim() === '') throw new TypeError('prompt must be a non-empty string');
    this.hold();
    const k = key ?? promptKey(prompt);
    const known = this.all().some((i) => i.key === k);
    if (!known) {
      this.state.prompts.push({ key: k, prompt, failures: 0, notBefore: 0 });
      this.save();
    }
    return k;
  }

  private all(): { key: string; prompt?: string }[] {
    return LISTS.flatMap((name) => this.state[name] as { key: string; prompt?: string }[]);
  }

  /**
   * Renames the entries saved under `formerKey` to `key` (default: the
   * prompt's hash): for state written when keys were something else (e.g.
   * the prompt file's path and line). An entry that kept its prompt is renamed
   * only when that prompt is this one, so an edited prompt stays new; an
   * older answered entry, which kept none, is taken to be this prompt's.
   */
  adoptKey(formerKey: string, prompt: string, key = promptKey(prompt)): void {
    this.hold();
    let changed = false;
    for (const i of this.all()) {
      if (i.key !== formerKey || (i.prompt !== undefined && i.prompt !== prompt)) continue;
      i.key = key;
      i.prompt ??= prompt;
      changed = true;
    }
    if (changed) this.save();
  }

  /**
   * Takes back the queued prompts (not yet posted, nor being posted) whose
   * key is not in `keep`: a prompt edited or deleted before it went out is
   * not posted after all. Returns them; enqueue one again to queue it again.
   */
  withdraw(keep: ReadonlySet<string>): PromptItem[] {
    this.hold();
    const gone = this.state.prompts.filter((p) => !p.posting && !keep.has(p.key));
    if (gone.length) {
      this.state.prompts = this.state.prompts.filter((p) => !gone.includes(p));
      this.save();
    }
    return gone;
  }

  /** Every answer delivered so far, oldest first. */
  get answered(): readonly AnsweredItem[] {
    return this.state.answered;
  }

  status(): { queued: number; awaiting: number; delivering: number; answered: number; dropped: number } {
    const s = this.state;
    return { queued: s.prompts.length, awaiting: s.awaiting.length, delivering: s.delivering.length, answered: s.answered.length, dropped: s.dropped.length };
  }

  get dropped(): readonly DroppedItem[] {
    return this.state.dropped;
  }

  /** True when nothing is queued or awaiting an answer. */
  get idle(): boolean {
    return this.state.prompts.length === 0 && this.state.awaiting.length === 0 && this.state.delivering.length === 0;
  }

  /** When each kind of action can next go out. */
  private next(): { action: 'post' | 'check' | 'deliver'; at: number } | null {
    const c = this.client;
    const now = c.clock.now();
    const options: { action: 'post' | 'check' | 'deliver'; at: number }[] = [];
    if (this.state.delivering.length) {
      options.push({ action: 'deliver', at: Math.max(now, Math.min(...this.state.delivering.map((d) => d.notBefore))) });
    }
    if (this.state.prompts.length) {
      const due = Math.min(...this.state.prompts.map((p) => p.notBefore));
      options.push({ action: 'post', at: Math.max(now, due, c.nextSlot('config'), c.nextSlot('query')) });
    }
    if (this.state.awaiting.length) {
      const due = Math.min(...this.state.awaiting.map((a) => a.notBefore));
      const at = Math.max(now, due);
      options.push({ action: 'check', at: Math.max(at, c.nextSlot(this.checkRoute(at))) });
    }
    if (!options.length) return null;
    return options.reduce((a, b) => (b.at < a.at ? b : a));
  }

  /** Which route checks the questions due at `at`: the single-answer one for one or two, the batch one for more while it has budget. */
  private checkRoute(at: number): 'answer' | 'answers' {
    const due = this.state.awaiting.filter((a) => a.notBefore <= at).length;
    if (due <= SINGLE_ROUTE_MAX) return 'answer';
    // Spent for the hour: one by one is sooner than waiting for the batch route.
    return this.client.nextSlot('answers') > at + due * MIN_CHECK_INTERVAL_MS ? 'answer' : 'answers';
  }

  /** When an unanswered question is looked at next: after a quarter of its age, within bounds. */
  private nextCheck(item: AwaitingItem, t: number): number {
    return t + Math.min(Math.max((t - item.postedAt) / 4, MIN_CHECK_INTERVAL_MS), this.maxIntervalMs);
  }

  /**
   * Runs until both queues are empty, `until` (ms since the epoch) is reached,
   * or the signal aborts (a proof of work in progress stops; a question being
   * posted is awaited and kept). Rejects with a NetworkError when the service
   * cannot be reached. Lets go of the state file's lock when it ends.
   */
  async run(opts: { signal?: AbortSignal; until?: number } = {}): Promise<void> {
    this.hold();
    try {
      await this.schedule(opts);
    } finally {
      this.close();
    }
  }

  private async schedule(opts: { signal?: AbortSignal; until?: number }): Promise<void> {
    const clock = this.client.clock;
    this.signal = opts.signal;
    for (;;) {
      if (opts.signal?.aborted) return;
      const n = this.next();
      if (!n) return;
      if (opts.until !== undefined && n.at > opts.until) {
        if (clock.now() < opts.until) await clock.sleep(opts.until - clock.now(), opts.signal);
        return;
      }
      if (n.at > clock.now()) {
        this.events.emit('waiting', { until: n.at, action: n.action });
        try {
          await clock.sleep(n.at - clock.now(), opts.signal);
        } catch {
          return; // aborted while waiting
        }
      }
      if (n.action === 'post') await this.postOne();
      else if (n.action === 'check') await this.checkAnswers();
      else await this.deliverDue();
    }
  }

  /** Not the item's fault: the run was stopped, or the service cannot be reached at all. */
  private notCounted(err: unknown): boolean {
    if (err instanceof NetworkError && !err.connected) return true;
    return this.signal?.aborted === true;
  }

  private fail<T extends { failures: number; lastError?: string; notBefore: number }>(item: T, err: unknown): boolean {
    item.failures++;
    item.lastError = (err as Error)?.message ?? String(err);
    item.notBefore = this.client.clock.now() + this.backoffMs * 2 ** (item.failures - 1);
    return item.failures >= this.maxFailures;
  }

  private drop(d: DroppedItem): void {
    this.state.dropped.push(d);
    this.events.emit('dropped', d);
  }

  private async postOne(): Promise<void> {
    const now = this.client.clock.now();
    const item = this.state.prompts.find((p) => p.notBefore <= now) ?? this.state.prompts[0]!;
    item.posting = true;
    this.save();
    try {
      const id = await this.client.query(item.prompt, this.signal ? { signal: this.signal } : {});
      this.state.prompts = this.state.prompts.filter((p) => p !== item);
      const t = this.client.clock.now();
      this.state.awaiting.push({ key: item.key, prompt: item.prompt, id, postedAt: t, checks: 0, failures: 0, notBefore: t + this.firstCheckMs });
      this.save();
      this.events.emit('posted', { key: item.key, prompt: item.prompt, id });
    } catch (err) {
      item.posting = false;
      if (this.notCounted(err)) {
        this.save();
        if (this.signal?.aborted) return;
        throw err;
      }
      // A request the service calls malformed will not get better with retries.
      const hopeless = err instanceof BadRequestError;
      if (this.fail(item, err) || hopeless) {
        this.state.prompts = this.state.prompts.filter((p) => p !== item);
        this.drop({ key: item.key, prompt: item.prompt, reason: `not posted after ${item.failures} attempts: ${item.lastError}`, at: this.client.clock.now() });
      }
      this.save();
      if (!(err instanceof RateLimitedError)) this.events.emit('failed', err as Error);
    }
  }

  private async checkAnswers(): Promise<void> {
    const now = this.client.clock.now();
    const due = this.state.awaiting.filter((a) => a.notBefore <= now);
    const route = this.checkRoute(now);
    const batch = (due.length ? due : this.state.awaiting).slice(0, route === 'answer' ? 1 : 128);
    try {
      const results: (ThreadItem | ItemError)[] =
        route === 'answer' ? await this.client.answer(batch[0]!.id).then((t) => (t ? [{ ...t, id: batch[0]!.id }] : [])) : await this.client.answers(batch.map((a) => a.id));
      const t = this.client.clock.now();
      const answered = new Map<string, ThreadItem>();
      for (const r of results) if ('answer' in r) answered.set(r.id, r);
      for (const item of batch) {
        item.checks = (item.checks ?? 0) + 1;
        const r = answered.get(item.id);
        if (r) {
          // Kept, with the answer itself, until delivered: a crash from here on loses nothing.
          this.state.awaiting = this.state.awaiting.filter((a) => a !== item);
          this.state.delivering.push({ key: item.key, prompt: item.prompt, id: item.id, thread: r, failures: 0, notBefore: t });
        } else if (t - item.postedAt > this.giveUpMs) {
          this.state.awaiting = this.state.awaiting.filter((a) => a !== item);
          this.drop({ key: item.key, prompt: item.prompt, id: item.id, reason: `no answer after ${Math.round(this.giveUpMs / DAY)} days`, at: t });
        } else {
          item.notBefore = this.nextCheck(item, t);
        }
      }
      this.save();
    } catch (err) {
      if (this.notCounted(err)) {
        if (this.signal?.aborted) return;
        throw err;
      }
      for (const item of batch) {
        item.checks = (item.checks ?? 0) + 1;
        if (this.fail(item, err)) {
          this.state.awaiting = this.state.awaiting.filter((a) => a !== item);
          this.drop({ key: item.key, prompt: item.prompt, id: item.id, reason: `answer checks failed ${item.failures} times: ${item.lastError}`, at: this.client.clock.now() });
        }
      }
      this.save();
      if (!(err instanceof RateLimitedError)) this.events.emit('failed', err as Error);
    }
  }

  /** Delivers every answer whose (re)try is due, oldest first. */
  private async deliverDue(): Promise<void> {
    const now = this.client.clock.now();
    for (const item of this.state.delivering.filter((d) => d.notBefore <= now)) {
      try {
        await this.deliver?.({ key: item.key, prompt: item.prompt, thread: item.thread, lastAttempt: item.failures + 1 >= this.maxFailures });
      } catch (err) {
        if (this.notCounted(err)) {
          if (this.signal?.aborted) return;
          throw err;
        }
        if (this.fail(item, err)) {
          this.state.delivering = this.state.delivering.filter((d) => d !== item);
          this.drop({ key: item.key, prompt: item.prompt, id: item.id, reason: `answer not delivered after ${item.failures} attempts: ${item.lastError}`, at: this.client.clock.now() });
        }
        this.save();
        this.events.emit('failed', err as Error);
        continue;
      }
      this.state.delivering = this.state.delivering.filter((d) => d !== item);
      this.state.answered.push({ key: item.key, id: item.id, at: this.client.clock.now(), prompt: item.prompt, thread: item.thread });
      this.save();
      this.events.emit('answered', { key: item.key, prompt: item.prompt, thread: item.thread });
    }
  }
}
