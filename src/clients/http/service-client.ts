/**
 * What every service client does on each call: answer from the cache when
 * the route's headers allow, wait for a rate-limit slot (persisted), send
 * with the session cookie, turn statuses into typed errors, and retry
 * transient failures with backoff — each retry through the limiter again.
 */
import os from 'node:os';
import path from 'node:path';
import { realClock, type Clock } from '../clock.ts';
import { CookieJar } from './cookie-jar.ts';
import { BadRequestError, NetworkError, ServiceNotFoundError, RateLimitedError, ServerError, ServiceError, UnauthorizedError } from '../errors.ts';
import { PowprimeError } from '../../errors.ts';
import { ResponseCache } from './cache.ts';
import { RateLimiter, banUntil, type Limits } from './rate-limiter.ts';
import { fillPath, limitsOf, type RouteTable } from './routes.ts';
import { isLoopback, parseJson, send, type HttpResponse } from './transport.ts';

export interface ServiceClientOptions {
  baseUrl: string | URL;
  /** Where limiter state, cookies and caches are kept (default: ~/.local/state/powprime/<service>). */
  stateDir?: string;
  /** Per-route limits, or 'off' (only for loopback base URLs). Default: the spec's. */
  limits?: Limits | 'off';
  clock?: Clock;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  /** Longest wait for a rate-limit slot or a ban before RateLimitWaitError (default: no bound). */
  maxWaitMs?: number;
  /** Attempts for transient failures (5xx, timeouts, network, garbage bodies, 429) (default 3). */
  attempts?: number;
  /** First backoff between attempts, doubled each time (default 2 s). */
  backoffMs?: number;
  /** Told whenever a call waits for the limiter. */
  onWait?: (until: number, route: string, reason: string) => void;
  /**
   * Stops waits, backoffs and GETs at once (rejecting with its reason). A
   * POST already sent is not abandoned: its answer (a question id, a prime's
   * keys) is awaited and returned, so the caller can keep it.
   */
  signal?: AbortSignal;
}

export interface CallSpec<R extends string> {
  /** A key of the service's route table: its method, path and limits. */
  route: R;
  /** Values of the path's `:name` segments. */
  params?: Readonly<Record<string, string>>;
  query?: Record<string, string>;
  json?: unknown;
  /** Answer from (and store in) the HTTP cache. */
  cache?: boolean;
  /** Statuses returned to the caller instead of thrown. */
  accept?: number[];
  /** Not retried by this layer (the caller decides, e.g. registry /add). */
  noRetry?: boolean;
}

export function defaultStateDir(service: string): string {
  const base = process.env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'powprime', service);
}

export class ServiceClient<R extends string = string> {
  readonly baseUrl: URL;
  readonly stateDir: string;
  readonly clock: Clock;
  protected readonly limiter: RateLimiter;
  protected readonly cookies: CookieJar;
  protected readonly cache: ResponseCache;
  protected readonly o: Required<Pick<ServiceClientOptions, 'timeoutMs' | 'attempts' | 'backoffMs'>> & ServiceClientOptions;

  constructor(
    readonly service: string,
    protected readonly routes: RouteTable<R>,
    opts: ServiceClientOptions,
  ) {
    if (opts === null || typeof opts !== 'object') throw new TypeError('options must be an object with at least {baseUrl}');
    try {
      this.baseUrl = new URL(String(opts.baseUrl));
    } catch {
      throw new TypeError(`baseUrl must be an absolute http(s) URL (got ${JSON.stringify(opts.baseUrl)})`);
    }
    if (!/^https?:$/.test(this.baseUrl.protocol)) throw new TypeError(`baseUrl must be http or https (got ${this.baseUrl.protocol})`);
    if (opts.limits === 'off' && !isLoopback(this.baseUrl)) {
      throw new RangeError(`limits may be switched off only for a loopback baseUrl (got ${this.baseUrl.host})`);
    }
    this.o = { timeoutMs: 30_000, attempts: 3, backoffMs: 2_000, ...opts };
    this.clock = opts.clock ?? realClock;
    this.stateDir = opts.stateDir ?? defaultStateDir(service);
    const host = this.baseUrl.host.replace(/[^a-zA-Z0-9.-]/g, '_');
    this.limiter = new RateLimiter(opts.limits ?? limitsOf(routes), this.clock, path.join(this.stateDir, `limits-${host}.json`));
    this.cookies = new CookieJar(this.clock, path.join(this.stateDir, `cookies-${host}.json`));
    this.cache = new ResponseCache(this.clock, path.join(this.stateDir, 'http-cache'));
  }

  /** When the next call of `route` may go out (ms since the epoch). */
  nextSlot(route: R): number {
    return this.limiter.nextSlot(route);
  }

  protected url(p: string, query?: Record<string, string>): URL {
    const u = new URL(p.replace(/^\//, ''), this.baseUrl.href.endsWith('/') ? this.baseUrl : new URL(`${this.baseUrl.href}/`));
    for (const [k, v] of Object.entries(query ?? {})) u.searchParams.set(k, v);
    return u;
  }

  /** One call, with cache, limiter, cookies, typed errors and retries. */
  protected async call(spec: CallSpec<R>): Promise<HttpResponse> {
    const route = this.routes[spec.route];
    const url = this.url(fillPath(route, spec.params), spec.query);
    const creq = { method: route.method, url, ...(spec.json !== undefined ? { json: spec.json } : {}) };
    if (spec.cache) {
      const hit = this.cache.get(creq);
      if (hit) return hit;
    }
    const name = `${route.method} ${url.pathname}`;
    const attempts = spec.noRetry ? 1 : this.o.attempts;
    let delay = this.o.backoffMs;
    const abandonable = route.method !== 'POST';
    for (let attempt = 1; ; attempt++) {
      let recorded: number | null = null;
      try {
        recorded = await this.limiter.acquire(spec.route, {
          ...(this.o.signal ? { signal: this.o.signal } : {}),
          ...(this.o.maxWaitMs !== undefined ? { maxWaitMs: this.o.maxWaitMs } : {}),
          ...(this.o.onWait ? { onWait: this.o.onWait } : {}),
        });
        if (this.o.signal?.aborted) throw this.o.signal.reason;
        const cookie = this.cookies.header(url);
        const res = await send({
          method: route.method,
          url,
          ...(spec.json !== undefined ? { json: spec.json } : {}),
          ...(cookie ? { headers: { cookie } } : {}),
          timeoutMs: this.o.timeoutMs,
          route: name,
          ...(this.o.signal && abandonable ? { signal: this.o.signal } : {}),
        });
        this.cookies.store(url, res.headers['set-cookie']);
        if (res.status >= 200 && res.status < 300) {
          if (spec.cache) this.cache.put(creq, res);
          return res;
        }
        if (spec.accept?.includes(res.status)) return res;
        throw this.statusError(name, res);
      } catch (err) {
        // Never sent (refused, no such host, TLS): the service saw nothing, so nothing was spent.
        if (err instanceof NetworkError && !err.connected && recorded !== null) this.limiter.refund(spec.route, recorded);
        const transient = err instanceof PowprimeError && err.transient;
        if (!transient || attempt >= attempts || this.o.signal?.aborted) throw err;
        // A 429 already banned the host: the limiter waits that out on the next attempt.
        if (!(err instanceof RateLimitedError)) await this.clock.sleep(delay, this.o.signal);
        delay *= 2;
      }
    }
  }

  /** The service's `{error}` message, if the body has one. */
  protected serviceMessage(res: HttpResponse): string | null {
    try {
      const v = JSON.parse(res.body.toString('utf8')) as { error?: unknown };
      return typeof v?.error === 'string' ? v.error : null;
    } catch {
      return null;
    }
  }

  protected statusError(route: string, res: HttpResponse): ServiceError {
    const msg = this.serviceMessage(res);
    if (res.status === 429) {
      const until = banUntil(res.headers['retry-after'], this.clock.now());
      this.limiter.ban(until, route);
      return new RateLimitedError(this.service, route, msg, until);
    }
    if (res.status === 400) return new BadRequestError(this.service, route, 400, msg);
    if (res.status === 401) return new UnauthorizedError(this.service, route, 401, msg);
    if (res.status === 404) return new ServiceNotFoundError(this.service, route, 404, msg);
    if (res.status >= 500) return new ServerError(this.service, route, res.status, msg);
    return new ServiceError(this.service, route, res.status, msg);
  }

  protected json(res: HttpResponse, route: string): unknown {
    return parseJson(res, route);
  }
}
