/** The ad service's routes, with the limits its spec gives for them. */
import { HOUR, MINUTE } from '../clock.ts';
import { per, type RouteTable } from '../http/routes.ts';

export type AdRoute = 'random' | 'all' | 'leaderboard' | 'image';

export const AD_ROUTES: RouteTable<AdRoute> = {
  random: { method: 'GET', path: '/api/random', limits: [per(2, 1000), per(24, MINUTE), per(160, HOUR)] },
  all: { method: 'GET', path: '/api/all', limits: [per(1, 1000), per(1, MINUTE), per(10, HOUR)] },
  leaderboard: { method: 'GET', path: '/api/leaderboard', limits: [per(1, 1000), per(1, MINUTE), per(10, HOUR)] },
  image: { method: 'GET', path: '/ads/img/:filename', limits: [] },
};
