/**
 * What the question pipeline's state file holds: its five lists, the entries
 * of each, and the shape a file read back must have to be used; and what the
 * pipeline tells its caller of them (its events, the answer it delivers).
 */
import type { ShapeCheck } from '../http/state-file.ts';
import type { Action } from './pipeline-timing.ts';
import type { ThreadItem } from './threads.ts';

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

/** The state file's content. */
export interface Lists {
  prompts: PromptItem[];
  awaiting: AwaitingItem[];
  delivering: DeliveringItem[];
  answered: AnsweredItem[];
  dropped: DroppedItem[];
}

export const LISTS = ['prompts', 'awaiting', 'delivering', 'answered', 'dropped'] as const;

/** The state file's shape: the five lists, each of objects with a string key (and a string prompt where one is kept). */
export const stateShape: ShapeCheck = (v) => {
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

/** What the caller does with an answer; it must be idempotent: after a crash it runs again. */
export type Deliver = (answer: { key: string; prompt: string; thread: ThreadItem; lastAttempt: boolean }) => Promise<void> | void;

export interface PipelineEvents {
  posted: [{ key: string; prompt: string; id: string }];
  answered: [{ key: string; prompt: string; thread: ThreadItem }];
  dropped: [DroppedItem];
  waiting: [{ until: number; action: Action }];
  failed: [Error];
}
