/** The question service's routes, with the limits its spec gives for them. */
import { DAY, HOUR, MINUTE } from '../clock.ts';
import { per, type RouteTable } from '../http/routes.ts';

export type QuestionRoute = 'models' | 'config' | 'query' | 'answer' | 'file' | 'stats' | 'files' | 'page' | 'answers';

export const QUESTION_ROUTES: RouteTable<QuestionRoute> = {
  models: { method: 'GET', path: '/gpt/api/models', limits: [per(1, MINUTE)] },
  config: { method: 'GET', path: '/gpt/api/config', limits: [per(1, MINUTE)] },
  query: { method: 'POST', path: '/gpt/api/query', limits: [per(1, MINUTE), per(8, HOUR), per(16, DAY)] },
  answer: { method: 'GET', path: '/gpt/api/answer/:id', limits: [per(1, MINUTE)] },
  // "lenient (no fixed figure)": no client-side window; a 429 still bans.
  file: { method: 'GET', path: '/gpt/answer/:id/file/:filename', limits: [] },
  stats: { method: 'GET', path: '/gpt/api/stats', limits: [per(1, MINUTE)] },
  files: { method: 'GET', path: '/gpt/api/files', limits: [per(1, MINUTE)] },
  page: { method: 'GET', path: '/gpt/api/page/:n', limits: [per(1, MINUTE), per(8, HOUR)] },
  answers: { method: 'GET', path: '/gpt/api/answers', limits: [per(1, MINUTE), per(8, HOUR)] },
};

/** A token (nonce and difficulty) is good for 16 minutes and one request. */
export const TOKEN_LIFETIME_MS = 16 * MINUTE;
export const MAX_IDS_PER_ANSWERS = 128;
export const MAX_PER_PAGE = 128;
