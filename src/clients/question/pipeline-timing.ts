/**
 * When the question pipeline acts next, and by which route it checks answers.
 * One scheduler runs both queues: it always performs the action whose
 * rate-limit slot comes first, so waiting a day for the query budget never
 * holds up answer checks, and neither ever waits inside a call.
 *
 * Answers are written by people, so checking at once only spends budget: a
 * question is first checked `firstCheckAfterMs` after it was posted, then
 * again after a quarter of its age (at least 1.1 minutes, at most
 * `maxCheckIntervalMs`), so an answer is seen soon after it appears while
 * long waits cost few calls. One or two questions due are asked for by the
 * single-answer route (1/min, no hourly cap); more go in one call of the
 * answers route (8 an hour), unless that budget is spent for the hour.
 */
import type { QuestionClient } from './client.ts';
import { MINUTE } from '../clock.ts';
import type { AwaitingItem, Lists } from './pipeline-items.ts';

/** The spec's advice: slightly longer than the per-minute limit. */
const MIN_CHECK_INTERVAL_MS = 1.1 * MINUTE;
/** Up to this many questions due are checked one by one on the single-answer route. */
const SINGLE_ROUTE_MAX = 2;
/** firstCheckAfterMs when not given. */
export const DEFAULT_FIRST_CHECK_MS = 5 * MINUTE;

export type Action = 'post' | 'check' | 'deliver';

/** The action that can go out first, and when; null when nothing is queued, awaited or being delivered. */
export function nextAction(lists: Lists, client: QuestionClient): { action: Action; at: number } | null {
  const now = client.clock.now();
  const options: { action: Action; at: number }[] = [];
  if (lists.delivering.length) {
    options.push({ action: 'deliver', at: Math.max(now, Math.min(...lists.delivering.map((d) => d.notBefore))) });
  }
  if (lists.prompts.length) {
    const due = Math.min(...lists.prompts.map((p) => p.notBefore));
    options.push({ action: 'post', at: Math.max(now, due, client.nextSlot('config'), client.nextSlot('query')) });
  }
  if (lists.awaiting.length) {
    const due = Math.min(...lists.awaiting.map((a) => a.notBefore));
    const at = Math.max(now, due);
    options.push({ action: 'check', at: Math.max(at, client.nextSlot(checkRoute(lists.awaiting, client, at))) });
  }
  if (!options.length) return null;
  return options.reduce((a, b) => (b.at < a.at ? b : a));
}

/** Which route checks the questions due at `at`: the single-answer one for one or two, the batch one for more while it has budget. */
export function checkRoute(awaiting: readonly AwaitingItem[], client: QuestionClient, at: number): 'answer' | 'answers' {
  const due = awaiting.filter((a) => a.notBefore <= at).length;
  if (due <= SINGLE_ROUTE_MAX) return 'answer';
  // Spent for the hour: one by one is sooner than waiting for the batch route.
  return client.nextSlot('answers') > at + due * MIN_CHECK_INTERVAL_MS ? 'answer' : 'answers';
}

/** When an unanswered question is looked at next: after a quarter of its age, within bounds. */
export function nextCheck(item: AwaitingItem, t: number, maxIntervalMs: number): number {
  return t + Math.min(Math.max((t - item.postedAt) / 4, MIN_CHECK_INTERVAL_MS), maxIntervalMs);
}
