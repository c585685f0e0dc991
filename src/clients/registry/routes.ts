/**
 * The prime registry's routes. Its spec shows no rate limits, so none are
 * kept client-side by default (a 429 still bans the host); pass `limits` to
 * the client to add some.
 */
import type { RouteTable } from '../http/routes.ts';

export type RegistryRoute = 'totp' | 'requirements' | 'add' | 'note' | 'prime' | 'rekey' | 'ranges';

export const REGISTRY_ROUTES: RouteTable<RegistryRoute> = {
  totp: { method: 'GET', path: '/api/totp', limits: [] },
  requirements: { method: 'GET', path: '/api/requirements/:bits', limits: [] },
  add: { method: 'POST', path: '/api/add', limits: [] },
  note: { method: 'POST', path: '/api/note', limits: [] },
  prime: { method: 'GET', path: '/api/prime/:p', limits: [] },
  rekey: { method: 'POST', path: '/api/rekey', limits: [] },
  ranges: { method: 'GET', path: '/api/ranges', limits: [] },
};
