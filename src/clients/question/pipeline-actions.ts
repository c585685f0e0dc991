/**
 * The question pipeline's three actions: post a prompt (config, proof of work
 * and query, in the client), check questions for answers, deliver the answers
 * received. Each saves what it changed before reporting it (a drop: with its
 * step), a prompt `posting` (saved) before the POST: a crash loses nothing.
 * Items that keep failing are retried with backoff and dropped after
 * `maxFailures`, the reason recorded. An unreachable service (refused, no such
 * host, TLS) stops the run with its NetworkError instead of counting against
 * the items: an outage is not a reason to drop a prompt.
 */
import { BadRequestError, RateLimitedError } from '../errors.ts';
import { NetworkError } from '../network-error.ts';
import type { QuestionClient } from './client.ts';
import type { ItemError, ThreadItem } from './threads.ts';
import { DAY } from '../clock.ts';
import type { AwaitingItem, Deliver, DeliveringItem, DroppedItem, Lists, PipelineEvents, PromptItem } from './pipeline-items.ts';
import type { PipelineState } from './pipeline-state.ts';
import { checkRoute, nextCheck } from './pipeline-timing.ts';

/** The pipeline's options the actions follow (see PipelineOptions), defaults applied. */
export interface ActionSettings {
  maxFailures: number;
  backoffMs: number;
  firstCheckMs: number;
  maxIntervalMs: number;
  giveUpMs: number;
  deliver: Deliver | undefined;
}

type Emit = <E extends keyof PipelineEvents>(event: E, ...args: PipelineEvents[E]) => void;

export class PipelineActions {
  constructor(
    private readonly state: PipelineState,
    private readonly client: QuestionClient,
    private readonly settings: ActionSettings,
    private readonly emit: Emit,
  ) {}

  /** Read each time: reading the file again replaces the lists. */
  private get lists(): Lists {
    return this.state.lists;
  }

  /** Posts the first prompt due (or else the first queued) and moves it to the questions awaiting an answer. */
  async post(signal: AbortSignal | undefined): Promise<void> {
    const now = this.client.clock.now();
    const item = this.lists.prompts.find((p) => p.notBefore <= now) ?? this.lists.prompts[0]!;
    item.posting = true;
    this.state.save();
    try {
      const id = await this.client.query(item.prompt, signal ? { signal } : {});
      this.lists.prompts = this.lists.prompts.filter((p) => p !== item);
      const t = this.client.clock.now();
      this.lists.awaiting.push({ key: item.key, prompt: item.prompt, id, postedAt: t, checks: 0, failures: 0, notBefore: t + this.settings.firstCheckMs });
      this.state.save();
      this.emit('posted', { key: item.key, prompt: item.prompt, id });
    } catch (err) {
      this.postFailed(item, err, signal);
    }
  }

  private postFailed(item: PromptItem, err: unknown, signal: AbortSignal | undefined): void {
    item.posting = false;
    if (this.notCounted(err, signal)) {
      this.state.save();
      if (signal?.aborted) return;
      throw err;
    }
    // A request the service calls malformed will not get better with retries.
    const hopeless = err instanceof BadRequestError;
    if (this.fail(item, err) || hopeless) {
      this.lists.prompts = this.lists.prompts.filter((p) => p !== item);
      this.drop({ key: item.key, prompt: item.prompt, reason: `not posted after ${item.failures} attempts: ${item.lastError}`, at: this.client.clock.now() });
    }
    this.state.save();
    if (!(err instanceof RateLimitedError)) this.emit('failed', err as Error);
  }

  /** Checks the questions due (or else the earliest ones) with one call of the route that suits them. */
  async check(signal: AbortSignal | undefined): Promise<void> {
    const now = this.client.clock.now();
    const due = this.lists.awaiting.filter((a) => a.notBefore <= now);
    const route = checkRoute(this.lists.awaiting, this.client, now);
    const batch = (due.length ? due : this.lists.awaiting).slice(0, route === 'answer' ? 1 : 128);
    try {
      const answers = await this.fetchAnswers(route, batch);
      this.settleChecked(batch, answers);
    } catch (err) {
      this.checkFailed(batch, err, signal);
    }
  }

  /** The answers the service has for `batch`, by question id. */
  private async fetchAnswers(route: 'answer' | 'answers', batch: AwaitingItem[]): Promise<Map<string, ThreadItem>> {
    const results: (ThreadItem | ItemError)[] =
      route === 'answer' ? await this.client.answer(batch[0]!.id).then((t) => (t ? [{ ...t, id: batch[0]!.id }] : [])) : await this.client.answers(batch.map((a) => a.id));
    const answers = new Map<string, ThreadItem>();
    for (const r of results) if ('answer' in r) answers.set(r.id, r);
    return answers;
  }

  /** After a check: an answered question moves to delivering, one unanswered too long is dropped, any other is checked again later. */
  private settleChecked(batch: AwaitingItem[], answers: Map<string, ThreadItem>): void {
    const t = this.client.clock.now();
    const { giveUpMs, maxIntervalMs } = this.settings;
    for (const item of batch) {
      item.checks = (item.checks ?? 0) + 1;
      const r = answers.get(item.id);
      if (r) {
        // Kept, with the answer itself, until delivered: a crash from here on loses nothing.
        this.lists.awaiting = this.lists.awaiting.filter((a) => a !== item);
        this.lists.delivering.push({ key: item.key, prompt: item.prompt, id: item.id, thread: r, failures: 0, notBefore: t });
      } else if (t - item.postedAt > giveUpMs) {
        this.lists.awaiting = this.lists.awaiting.filter((a) => a !== item);
        this.drop({ key: item.key, prompt: item.prompt, id: item.id, reason: `no answer after ${Math.round(giveUpMs / DAY)} days`, at: t });
      } else {
        item.notBefore = nextCheck(item, t, maxIntervalMs);
      }
    }
    this.state.save();
  }

  private checkFailed(batch: AwaitingItem[], err: unknown, signal: AbortSignal | undefined): void {
    if (this.notCounted(err, signal)) {
      if (signal?.aborted) return;
      throw err;
    }
    for (const item of batch) {
      item.checks = (item.checks ?? 0) + 1;
      if (this.fail(item, err)) {
        this.lists.awaiting = this.lists.awaiting.filter((a) => a !== item);
        this.drop({ key: item.key, prompt: item.prompt, id: item.id, reason: `answer checks failed ${item.failures} times: ${item.lastError}`, at: this.client.clock.now() });
      }
    }
    this.state.save();
    if (!(err instanceof RateLimitedError)) this.emit('failed', err as Error);
  }

  /** Delivers every answer whose (re)try is due, oldest first. */
  async deliverDue(signal: AbortSignal | undefined): Promise<void> {
    const now = this.client.clock.now();
    for (const item of this.lists.delivering.filter((d) => d.notBefore <= now)) {
      if (!(await this.deliverOne(item, signal))) return;
    }
  }

  /** Hands one answer to the caller; it counts as answered only once that resolves. False when the run was stopped meanwhile. */
  private async deliverOne(item: DeliveringItem, signal: AbortSignal | undefined): Promise<boolean> {
    try {
      await this.settings.deliver?.({ key: item.key, prompt: item.prompt, thread: item.thread, lastAttempt: item.failures + 1 >= this.settings.maxFailures });
    } catch (err) {
      if (this.notCounted(err, signal)) {
        if (signal?.aborted) return false;
        throw err;
      }
      if (this.fail(item, err)) {
        this.lists.delivering = this.lists.delivering.filter((d) => d !== item);
        this.drop({ key: item.key, prompt: item.prompt, id: item.id, reason: `answer not delivered after ${item.failures} attempts: ${item.lastError}`, at: this.client.clock.now() });
      }
      this.state.save();
      this.emit('failed', err as Error);
      return true;
    }
    this.lists.delivering = this.lists.delivering.filter((d) => d !== item);
    this.lists.answered.push({ key: item.key, id: item.id, at: this.client.clock.now(), prompt: item.prompt, thread: item.thread });
    this.state.save();
    this.emit('answered', { key: item.key, prompt: item.prompt, thread: item.thread });
    return true;
  }

  /** Not the item's fault: the run was stopped, or the service cannot be reached at all. */
  private notCounted(err: unknown, signal: AbortSignal | undefined): boolean {
    if (err instanceof NetworkError && !err.connected) return true;
    return signal?.aborted === true;
  }

  /** Counts a failure and sets the retry's backoff; true when the item has failed too often. */
  private fail<T extends { failures: number; lastError?: string; notBefore: number }>(item: T, err: unknown): boolean {
    item.failures++;
    item.lastError = (err as Error)?.message ?? String(err);
    item.notBefore = this.client.clock.now() + this.settings.backoffMs * 2 ** (item.failures - 1);
    return item.failures >= this.settings.maxFailures;
  }

  private drop(d: DroppedItem): void {
    this.lists.dropped.push(d);
    this.emit('dropped', d);
  }
}
