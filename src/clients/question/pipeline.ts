/**
 * The question service's recommended topology, as one object: a prompt queue
 * (config, proof of work, query) and an answer queue (polled with the answers
 * route), both persisted so that a crash or kill -9 loses nothing. This file
 * holds the public QuestionPipeline: its options, its events and the loop
 * that runs the queues. What is kept, and its lock, is pipeline-state.ts;
 * what each step does, pipeline-actions.ts; when each goes out,
 * pipeline-timing.ts.
 */
import { EventEmitter } from 'node:events';
import type { QuestionClient } from './client.ts';
import { DAY, HOUR, MINUTE } from '../clock.ts';
import { checkOptionKeys, optionNames } from '../../option-checks.ts';
import { PipelineActions } from './pipeline-actions.ts';
import type { AnsweredItem, DroppedItem, PromptItem } from './pipeline-items.ts';
import { PipelineState, pipelineFile, promptKey } from './pipeline-state.ts';
import { DEFAULT_FIRST_CHECK_MS, nextAction } from './pipeline-timing.ts';

import type { Deliver, PipelineEvents } from './pipeline-items.ts';
export type { AnsweredItem, Deliver, DroppedItem, PipelineEvents, PromptItem } from './pipeline-items.ts';
export { pipelineFile } from './pipeline-state.ts';

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
const PIPELINE_OPTIONS = optionNames<PipelineOptions>()(['client', 'stateDir', 'maxFailures', 'backoffMs', 'firstCheckAfterMs', 'maxCheckIntervalMs', 'giveUpAfterMs', 'deliver']);

type Listener<E extends keyof PipelineEvents> = (...args: PipelineEvents[E]) => void;

export class QuestionPipeline {
  // Composed, not inherited: the published declarations name no Node type, so
  // they compile where Node's types are not loaded (TypeScript 7's default).
  private readonly events = new EventEmitter<PipelineEvents>();
  private readonly client: QuestionClient;
  private readonly state: PipelineState;
  private readonly actions: PipelineActions;

  constructor(opts: PipelineOptions) {
    if (opts === null || typeof opts !== 'object') throw new TypeError('options must be an object with {client, stateDir}');
    checkOptionKeys('options', opts, 'QuestionPipeline', PIPELINE_OPTIONS);
    if (typeof opts.stateDir !== 'string' || opts.stateDir === '') throw new TypeError('stateDir must be a folder path');
    if (opts.deliver !== undefined && typeof opts.deliver !== 'function') throw new TypeError('deliver must be a function');
    this.client = opts.client;
    const firstCheckMs = opts.firstCheckAfterMs ?? DEFAULT_FIRST_CHECK_MS;
    this.state = new PipelineState(pipelineFile(opts.client, opts.stateDir), firstCheckMs);
    const settings = {
      maxFailures: opts.maxFailures ?? 5,
      backoffMs: opts.backoffMs ?? MINUTE,
      firstCheckMs,
      maxIntervalMs: opts.maxCheckIntervalMs ?? 1.1 * HOUR,
      giveUpMs: opts.giveUpAfterMs ?? 7 * DAY,
      deliver: opts.deliver,
    };
    // (The cast as in on(): Node's typing of emit does not follow a generic event name.)
    this.actions = new PipelineActions(this.state, this.client, settings, (event, ...args) => this.events.emit(event, ...(args as never)));
    this.state.hold();
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
    this.state.close();
  }

  /**
   * Queues a prompt (saved before returning). `key` identifies it across runs
   * (default: promptKey(prompt), a hash of its text); a key already known is not queued again.
   */
  enqueue(prompt: string, key?: string): string {
    if (typeof prompt !== 'string' || prompt.trim() === '') throw new TypeError('prompt must be a non-empty string');
    const k = key ?? promptKey(prompt);
    this.state.enqueue(prompt, k);
    return k;
  }

  /**
   * Renames the entries saved under `formerKey` to `key` (default: the
   * prompt's hash): for state written when keys were something else (e.g.
   * the prompt file's path and line). An entry that kept its prompt is renamed
   * only when that prompt is this one, so an edited prompt stays new; an
   * older answered entry, which kept none, is taken to be this prompt's.
   */
  adoptKey(formerKey: string, prompt: string, key = promptKey(prompt)): void {
    this.state.adoptKey(formerKey, prompt, key);
  }

  /**
   * Takes back the queued prompts (not yet posted, nor being posted) whose
   * key is not in `keep`: a prompt edited or deleted before it went out is
   * not posted after all. Returns them; enqueue one again to queue it again.
   */
  withdraw(keep: ReadonlySet<string>): PromptItem[] {
    return this.state.withdraw(keep);
  }

  /** Every answer delivered so far, oldest first. */
  get answered(): readonly AnsweredItem[] {
    return this.state.lists.answered;
  }

  status(): { queued: number; awaiting: number; delivering: number; answered: number; dropped: number } {
    const s = this.state.lists;
    return { queued: s.prompts.length, awaiting: s.awaiting.length, delivering: s.delivering.length, answered: s.answered.length, dropped: s.dropped.length };
  }

  get dropped(): readonly DroppedItem[] {
    return this.state.lists.dropped;
  }

  /** True when nothing is queued or awaiting an answer. */
  get idle(): boolean {
    const s = this.state.lists;
    return s.prompts.length === 0 && s.awaiting.length === 0 && s.delivering.length === 0;
  }

  /**
   * Runs until both queues are empty, `until` (ms since the epoch) is reached,
   * or the signal aborts (a proof of work in progress stops; a question being
   * posted is awaited and kept). Rejects with a NetworkError when the service
   * cannot be reached. Lets go of the state file's lock when it ends.
   */
  async run(opts: { signal?: AbortSignal; until?: number } = {}): Promise<void> {
    this.state.hold();
    try {
      await this.schedule(opts);
    } finally {
      this.close();
    }
  }

  /** Performs the action that can go out first, waiting for it outside any call, until there is none or the run ends. */
  private async schedule(opts: { signal?: AbortSignal; until?: number }): Promise<void> {
    const clock = this.client.clock;
    for (;;) {
      if (opts.signal?.aborted) return;
      const n = nextAction(this.state.lists, this.client);
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
      if (n.action === 'post') await this.actions.post(opts.signal);
      else if (n.action === 'check') await this.actions.check(opts.signal);
      else await this.actions.deliverDue(opts.signal);
    }
  }
}
