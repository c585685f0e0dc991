/** The ad service's routes, with the limits its spec gives for them. */
import { HOUR, MINUTE } from '../http/rate-limiter.ts';
import type { RouteTable } from '../http/routes.ts';

export type AdRoute = 'random' | 'all' | 'leaderboard' | 'image';

export const AD_ROUTES: RouteTable<AdRoute> = {
  random: {
    method: 'GET',
    path: '/api/random',
    limits: [
      { limit: 2, periodMs: 1000 },
      { limit: 24, periodMs: MINUTE },
      { limit: 160, periodMs: HOUR },
    ],
  },
  all: {
    method: 'GET',
    path: '/api/all',
    limits: [
      { limit: 1, periodMs: 1000 },
      { limit: 1, periodMs: MINUTE },
      { limit: 10, periodMs: HOUR },
    ],
  },
  leaderboard: {
    method: 'GET',
    path: '/api/leaderboard',
    limits: [
      { limit: 1, periodMs: 1000 },
      { limit: 1, periodMs: MINUTE },
      { limit: 10, periodMs: HOUR },
    ],
  },
  image: { method: 'GET', path: '/ads/img/:filename', limits: [] },
};
