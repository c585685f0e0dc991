/**
 * QuestionPipeline's options and the arguments of its methods, checked where
 * they are given: a wrong one is a TypeError or RangeError naming it, not an
 * item that makes the state file unreadable at the next start, or a loop
 * that retries without pause.
 */
import { DAY, HOUR, MINUTE } from '../clock.ts';
import { checkOptionKeys, checkOptions, optionNames } from '../../option-checks.ts';
import { argumentError, checkFunction, checkSignal, show } from '../../validate.ts';
import { QuestionClient } from './client.ts';
import type { ActionSettings } from './pipeline-actions.ts';
import type { Deliver } from './pipeline-items.ts';
import { DEFAULT_FIRST_CHECK_MS } from './pipeline-timing.ts';

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

/** The longest a key may be: it is saved with every item of the state file. */
const MAX_KEY_LENGTH = 1024;

/** A prompt's key: a non-empty string, as the state file keeps and checks it. */
export function checkKey(name: string, value: unknown): string {
  if (typeof value !== 'string') throw argumentError(TypeError, name, `must be a string (got ${show(value)})`);
  if (value === '' || value.length > MAX_KEY_LENGTH) throw argumentError(RangeError, name, `must be 1 to ${MAX_KEY_LENGTH} characters long (got ${value.length})`);
  return value;
}

/** A duration option: a number of milliseconds, at least `min`, or the default. */
function duration(opts: PipelineOptions, name: 'backoffMs' | 'firstCheckAfterMs' | 'maxCheckIntervalMs' | 'giveUpAfterMs', min: number, fallback: number): number {
  const v: unknown = opts[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'number') throw argumentError(TypeError, name, `must be a number of milliseconds (got ${show(v)})`);
  if (!Number.isFinite(v) || v < min) throw argumentError(RangeError, name, `must be a finite number of milliseconds of at least ${min} (got ${show(v)})`);
  return v;
}

/** The constructor's options, checked, with their defaults. */
export function pipelineSettings(opts: PipelineOptions): { client: QuestionClient; stateDir: string; settings: ActionSettings } {
  if (opts === null || typeof opts !== 'object') throw new TypeError('options must be an object with {client, stateDir}');
  checkOptionKeys('options', opts, 'QuestionPipeline', PIPELINE_OPTIONS);
  if (!(opts.client instanceof QuestionClient)) throw argumentError(TypeError, 'client', `must be a QuestionClient (got ${show(opts.client)})`);
  if (typeof opts.stateDir !== 'string' || opts.stateDir === '') throw argumentError(TypeError, 'stateDir', `must be a folder path (got ${show(opts.stateDir)})`);
  const maxFailures: unknown = opts.maxFailures ?? 5;
  if (typeof maxFailures !== 'number' || !Number.isInteger(maxFailures) || maxFailures < 1 || maxFailures > 1000) {
    throw argumentError(typeof maxFailures === 'number' ? RangeError : TypeError, 'maxFailures', `must be a whole number from 1 to 1000 (got ${show(maxFailures)})`);
  }
  const settings: ActionSettings = {
    maxFailures,
    backoffMs: duration(opts, 'backoffMs', 0, MINUTE),
    firstCheckMs: duration(opts, 'firstCheckAfterMs', 0, DEFAULT_FIRST_CHECK_MS),
    maxIntervalMs: duration(opts, 'maxCheckIntervalMs', 1, 1.1 * HOUR),
    giveUpMs: duration(opts, 'giveUpAfterMs', 1, 7 * DAY),
    deliver: checkFunction<Deliver>('deliver', opts.deliver),
  };
  return { client: opts.client, stateDir: opts.stateDir, settings };
}

const RUN_OPTIONS = optionNames<{ signal?: AbortSignal; until?: number }>()(['signal', 'until']);

/** run()'s options: an AbortSignal, and `until` as ms since the epoch. */
export function checkRunOptions(opts: { signal?: AbortSignal; until?: number } | undefined): { signal?: AbortSignal; until?: number } {
  const o = checkOptions('options', opts, 'run()', RUN_OPTIONS);
  const signal = checkSignal('signal', o.signal);
  if (o.until !== undefined && (typeof o.until !== 'number' || Number.isNaN(o.until))) throw argumentError(TypeError, 'until', `must be a time in ms since the epoch (got ${show(o.until)})`);
  return { ...(signal ? { signal } : {}), ...(o.until !== undefined ? { until: o.until } : {}) };
}
