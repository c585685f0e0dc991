/** The question service's routes and the limits its spec gives for them. */
import { DAY, HOUR, MINUTE, type Limits } from '../http/rate-limiter.ts';

export type QuestionRoute = 'models' | 'config' | 'query' | 'answer' | 'file' | 'stats' | 'files' | 'page' | 'answers';

export const QUESTION_LIMITS: Limits = {
  models: [{ limit: 1, periodMs: MINUTE }],
  config: [{ limit: 1, periodMs: MINUTE }],
  query: [
    { limit: 1, periodMs: MINUTE },
    { limit: 8, periodMs: HOUR },
    { limit: 16, periodMs: DAY },
  ],
  answer: [{ limit: 1, periodMs: MINUTE }],
  // "lenient (no fixed figure)": no client-side window; a 429 still bans.
  file: [],
  stats: [{ limit: 1, periodMs: MINUTE }],
  files: [{ limit: 1, periodMs: MINUTE }],
  page: [
    { limit: 1, periodMs: MINUTE },
    { limit: 8, periodMs: HOUR },
  ],
  answers: [
    { limit: 1, periodMs: MINUTE },
    { limit: 8, periodMs: HOUR },
  ],
};

/** A token (nonce and difficulty) is good for 16 minutes and one request. */
export const TOKEN_LIFETIME_MS = 16 * MINUTE;
export const MAX_IDS_PER_ANSWERS = 128;
export const MAX_PER_PAGE = 128;
