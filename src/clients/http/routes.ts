/**
 * One route table per service: each call the client makes is a key of its
 * table, which says the method, the path and the limits the service's spec
 * gives (the client's calls are typed by the keys, so a call cannot name a
 * route the table lacks, nor its limits drift from its path).
 */
import type { Limits, Window } from './rate-limiter.ts';
import { pathSegment } from './shapes.ts';

export interface Route {
  readonly method: 'GET' | 'POST';
  /** `:name` marks a segment filled from the call's params (checked and encoded by pathSegment). */
  readonly path: string;
  readonly limits: readonly Window[];
}

export type RouteTable<R extends string> = { readonly [K in R]: Route };

/** A window: at most `limit` calls in any `periodMs`. */
export const per = (limit: number, periodMs: number): Window => ({ limit, periodMs });

/** The limiter's view of a table: windows by route key, each route named in `limits` (a client's option) replaced; or 'off'. */
export function limitsOf<R extends string>(table: RouteTable<R>, limits?: Limits | 'off'): Limits | 'off' {
  if (limits === 'off') return 'off';
  return { ...Object.fromEntries(Object.entries<Route>(table).map(([k, r]) => [k, [...r.limits]])), ...limits };
}

/** The route's path with its `:name` segments filled from `params`. */
export function fillPath(route: Route, params: Readonly<Record<string, string>> = {}): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => pathSegment(name, params[name]));
}

/** `p` under the base URL's path (a base of http://h/m serves /api/x at /m/api/x), with `query`. */
export function urlUnder(base: URL, p: string, query?: Record<string, string>): URL {
  const u = new URL(p.replace(/^\//, ''), base.href.endsWith('/') ? base : new URL(`${base.href}/`));
  for (const [k, v] of Object.entries(query ?? {})) u.searchParams.set(k, v);
  return u;
}

/**
 * How errors and waits name a route, from its table entry so the two cannot
 * drift: the method and the path as sent, under the base URL's path as a
 * status error names it, its `:name` segments left out ("GET /gpt/api/answer":
 * an id or a prime would only lengthen the message) or, given `params`,
 * filled (where the parameter is the point, as a bit length is).
 */
export function routeLabel(route: Route, base: URL, params?: Readonly<Record<string, string>>): string {
  return `${route.method} ${urlUnder(base, params === undefined ? route.path.replace(/\/:[A-Za-z]+/g, '') : fillPath(route, params)).pathname}`;
}
