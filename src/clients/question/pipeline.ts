/**
 * The question service's recommended topology, as one object: a prompt queue
 * (config, proof of work, query) and an answer queue (polled with the answers
 * route), both persisted so that a crash or kill -9 loses nothing. This file
 * holds the public QuestionPipeline: its events and the loop that runs the
 * queues. Its options and their checks are pipeline-options.ts; what is
 * kept, and its lock, pipeline-state.ts; what each step does,
 * pipeline-actions.ts; when each goes out, pipeline-timing.ts.
 */
import { EventEmitter } from 'node:events';
import { argumentError, checkString, show } from '../../validate.ts';
import type { QuestionClient } from './client.ts';
import { PipelineActions } from './pipeline-actions.ts';
import type { AnsweredItem, DroppedItem, PromptItem } from './pipeline-items.ts';
import { PipelineState, pipelineFile, promptKey } from './pipeline-state.ts';
import { nextAction } from './pipeline-timing.ts';
import { checkKey, checkRunOptions, type PipelineOptions, pipelineSettings } from './pipeline-options.ts';

import type { PipelineEvents } from './pipeline-items.ts';
export type { AnsweredItem, Deliver, DroppedItem, PipelineEvents, PromptItem } from './pipeline-items.ts';
export { pipelineFile } from './pipeline-state.ts';
export type { PipelineOptions } from './pipeline-options.ts';

type Listener<E extends keyof PipelineEvents> = (...args: PipelineEvents[E]) => void;

export class QuestionPipeline {
  // Composed, not inherited: the published declarations name no Node type, so
  // they compile where Node's types are not loaded (TypeScript 7's default).
  private readonly events = new EventEmitter<PipelineEvents>();
  private readonly client: QuestionClient;
  private readonly state: PipelineState;
  private readonly actions: PipelineActions;

  constructor(opts: PipelineOptions) {
    const { client, stateDir, settings } = pipelineSettings(opts);
    this.client = client;
    this.state = new PipelineState(pipelineFile(client, stateDir), settings.firstCheckMs);
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
    if (typeof prompt !== 'string' || prompt.trim() === '') throw argumentError(TypeError, 'prompt', `must be a non-empty string (got ${show(prompt)})`);
    const k = key === undefined ? promptKey(prompt) : checkKey('key', key);
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
  adoptKey(formerKey: string, prompt: string, key?: string): void {
    checkString('prompt', prompt);
    // A former key is only looked up, never saved: a string of any length (an old prompt file's long path).
    this.state.adoptKey(checkString('formerKey', formerKey), prompt, key === undefined ? promptKey(prompt) : checkKey('key', key));
  }

  /**
   * Takes back the queued prompts (not yet posted, nor being posted) whose
   * key is not in `keep`: a prompt edited or deleted before it went out is
   * not posted after all. Returns them; enqueue one again to queue it again.
   */
  withdraw(keep: ReadonlySet<string>): PromptItem[] {
    if (!(keep instanceof Set)) throw argumentError(TypeError, 'keep', `must be a Set of the keys to keep (got ${show(keep)})`);
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
    const checked = checkRunOptions(opts);
    this.state.hold();
    try {
      await this.schedule(checked);
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
