/**
 * What every service client does on each call: answer from the cache when the route's headers
 * allow, wait for a rate-limit slot (persisted), send with the session cookie, turn statuses into
 * typed errors, and retry transient failures with backoff — each retry through the limiter again.
 */
import path from 'node:path';
import { realClock, type Clock } from '../clock.ts';
import { CookieJar } from './cookie-jar.ts';
import { NetworkError } from '../network-error.ts';
import { BadRequestError, ServiceNotFoundError, RateLimitedError, ServerError, ServiceError, UnauthorizedError } from '../errors.ts';
import { PowprimeError } from '../../errors.ts';
import { ResponseCache } from './cache.ts';
import { RateLimiter, type AcquireOptions } from './rate-limiter.ts';
import { DEFAULT_BAN_MS, banUntil } from './retry-after.ts';
import { fillPath, limitsOf, routeLabel, type RouteTable, urlUnder } from './routes.ts';
import { isLoopback, parseJson, probe, send, type HttpResponse } from './transport.ts';
import { argumentError, checkHttpUrl, show } from '../../validate.ts';
import { checkRequiredOptions } from '../../option-checks.ts';
import { linkSignals } from './linked-signal.ts';
import { defaultStateDir, hostStateFile, hostTag } from './state-paths.ts';
import { checkServiceClientOptions, SERVICE_CLIENT_OPTIONS, type ClientOptionNames, type ServiceClientOptions } from './client-options.ts';

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
  /** The body is not JSON (a file, an image). Otherwise a 2xx body that is not JSON is a ProtocolError, retried as a transient failure. */
  raw?: boolean;
  /** Not retried by this layer (the caller decides, e.g. registry /add). */
  noRetry?: boolean;
  /** Stops this call's waits, backoffs and GET, beside the client's own signal. */
  signal?: AbortSignal;
  /** Longest wait for this call's slot, below the client's maxWaitMs (e.g. a token's remaining life). */
  maxWaitMs?: number;
  /**
   * The body and query made as each request goes out, after any wait for a
   * slot: for what holds only for a moment (a TOTP, a key encrypted for a
   * 256-second window). Not with `cache`.
   */
  late?: () => { json?: unknown; query?: Record<string, string> };
}

export class ServiceClient<R extends string = string> {
  readonly baseUrl: URL;
  /** The base URL's host as state file names carry it (hostTag). */
  readonly host: string;
  /** The default base URL (options.defaultBaseUrl), whose state may still be in host-less files; null without one. */
  readonly defaultBaseUrl: URL | null;
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
    names: ClientOptionNames = { client: `the ${service} client`, own: [] },
  ) {
    checkRequiredOptions('options', opts, names.client, [...SERVICE_CLIENT_OPTIONS, ...names.own], 'must be an object with at least {baseUrl}');
    this.baseUrl = checkHttpUrl('baseUrl', opts.baseUrl);
    if (opts.limits === 'off' && !isLoopback(this.baseUrl)) {
      throw new RangeError(`limits may be switched off only for a loopback baseUrl (got ${this.baseUrl.host})`);
    }
    checkServiceClientOptions(opts);
    this.defaultBaseUrl = null;
    if (opts.defaultBaseUrl !== undefined) {
      try {
        this.defaultBaseUrl = new URL(String(opts.defaultBaseUrl));
      } catch {
        throw argumentError(TypeError, 'defaultBaseUrl', `must be an absolute http(s) URL (got ${show(opts.defaultBaseUrl)})`);
      }
    }
    this.host = hostTag(this.baseUrl);
    if (opts.probeBeforeWait !== undefined && typeof opts.probeBeforeWait !== 'boolean') throw argumentError(TypeError, 'probeBeforeWait', `must be true or false (got ${show(opts.probeBeforeWait)})`);
    if (opts.readOnlyState !== undefined && typeof opts.readOnlyState !== 'boolean') throw argumentError(TypeError, 'readOnlyState', `must be true or false (got ${show(opts.readOnlyState)})`);
    if (opts.limits !== undefined && opts.limits !== 'off') {
      const unknown = Object.keys(opts.limits).filter((k) => !Object.hasOwn(routes, k));
      if (unknown.length) throw argumentError(RangeError, 'limits', `names no route of the ${service} service: ${unknown.join(', ')} (its routes: ${Object.keys(routes).join(', ')})`);
    }
    // Defaults for what is absent or undefined: an explicit `attempts: undefined` must not mean "retry for ever".
    this.o = { ...opts, timeoutMs: opts.timeoutMs ?? 30_000, attempts: opts.attempts ?? 3, backoffMs: opts.backoffMs ?? 2_000 };
    this.clock = opts.clock ?? realClock;
    this.stateDir = opts.stateDir ?? defaultStateDir(service);
    const readOnly = opts.readOnlyState === true;
    this.limiter = new RateLimiter(limitsOf(routes, opts.limits), this.clock, this.hostFile('limits.json'), undefined, readOnly);
    this.cookies = new CookieJar(this.clock, this.hostFile('cookies.json'), readOnly);
    this.cache = new ResponseCache(this.clock, readOnly ? undefined : path.join(this.stateDir, 'http-cache'));
  }

  /**
   * This client's state file `name`, kept per host: `<stem>-<host><ext>` in the state dir (or `dir`).
   * With `legacy`, a host-less `name` written by an earlier version stays in use for the default
   * base URL's host while no per-host file exists (hostStateFile).
   */
  hostFile(name: string, opts: { legacy?: boolean; dir?: string } = {}): string {
    return hostStateFile(opts.dir ?? this.stateDir, name, this.host, opts.legacy && this.defaultBaseUrl !== null ? hostTag(this.defaultBaseUrl) : undefined);
  }

  /** When the next call of `route` may go out (ms since the epoch). */
  nextSlot(route: R): number {
    return this.limiter.nextSlot(route);
  }

  /** Waits until `route` has a slot, without taking it (RateLimiter.awaitSlot), within this client's maxWaitMs. */
  protected waitForSlot(route: R, signal?: AbortSignal): Promise<void> {
    return this.limiter.awaitSlot(route, this.acquireOptions(signal, this.o.maxWaitMs, this.label(route)));
  }

  /** How this client's errors and waits name `route` (routeLabel). */
  protected label(route: R, params?: Readonly<Record<string, string>>): string {
    return routeLabel(this.routes[route], this.baseUrl, params);
  }

  /** How a call of `name` (its method and path, as errors name it) waits for its slot. */
  private acquireOptions(signal: AbortSignal | undefined, maxWaitMs: number | undefined, name: string): AcquireOptions {
    return {
      ...(signal ? { signal } : {}),
      ...(maxWaitMs !== undefined ? { maxWaitMs } : {}),
      ...(this.o.onWait ? { onWait: this.o.onWait } : {}),
      ...(this.o.probeBeforeWait === true ? { beforeWait: () => this.reachable(name, signal) } : {}),
    };
  }

  /**
   * Before a rate-limit wait: a TCP connect to the service (not a request, so
   * nothing is spent). A service that refuses it, or a host that cannot be
   * found, is a NetworkError now rather than after a wait of minutes that
   * would end in the same error; one that connects, or says nothing within a
   * few seconds, is waited for as before.
   */
  private async reachable(name: string, signal: AbortSignal | undefined): Promise<void> {
    const failed = await probe(this.baseUrl, name, { timeoutMs: Math.min(this.o.timeoutMs, PROBE_TIMEOUT_MS), ...(signal ? { signal } : {}) });
    if (failed) throw failed;
  }

  /** The client's signal and a call's own, as one (linkSignals: dispose it when the call ends). */
  protected signalFor(own?: AbortSignal): { signal: AbortSignal | undefined; dispose: () => void } {
    if (own && this.o.signal) return linkSignals([own, this.o.signal]);
    return { signal: own ?? this.o.signal, dispose: () => {} };
  }

  protected url(p: string, query?: Record<string, string>): URL {
    return urlUnder(this.baseUrl, p, query);
  }

  /** One call, with cache, limiter, cookies, typed errors and retries. */
  protected async call(spec: CallSpec<R>): Promise<HttpResponse> {
    const linked = this.signalFor(spec.signal);
    try {
      return await this.callWith(spec, linked.signal);
    } finally {
      linked.dispose();
    }
  }

  private async callWith(spec: CallSpec<R>, signal: AbortSignal | undefined): Promise<HttpResponse> {
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
    const maxWaitMs = spec.maxWaitMs === undefined ? this.o.maxWaitMs : Math.min(spec.maxWaitMs, this.o.maxWaitMs ?? Number.POSITIVE_INFINITY);
    for (let attempt = 1; ; attempt++) {
      let recorded: number | null = null;
      // Whether the request was handed to the network: until then a failure (an abort, a body that could not be made) spent nothing.
      let handedOver = false;
      try {
        if (signal?.aborted) throw signal.reason;
        recorded = await this.limiter.acquire(spec.route, this.acquireOptions(signal, maxWaitMs, name));
        if (signal?.aborted) throw signal.reason;
        const late = spec.late?.();
        const json = late && 'json' in late ? late.json : spec.json;
        const target = late?.query ? this.url(fillPath(route, spec.params), { ...spec.query, ...late.query }) : url;
        const cookie = this.cookies.header(target);
        handedOver = true;
        const res = await send({
          method: route.method,
          url: target,
          ...(json !== undefined ? { json } : {}),
          ...(cookie ? { headers: { cookie } } : {}),
          timeoutMs: this.o.timeoutMs,
          route: name,
          ...(signal && abandonable ? { signal } : {}),
        });
        this.limiter.settle(spec.route, recorded);
        recorded = null; // settled: neither refunded nor settled again below
        this.cookies.store(url, res.headers['set-cookie']);
        if (res.status >= 200 && res.status < 300) {
          if (!spec.raw) parseJson(res, name);
          if (spec.cache) this.cache.put(creq, res);
          return res;
        }
        if (spec.accept?.includes(res.status)) return res;
        throw this.statusError(name, res);
      } catch (err) {
        // Never sent (not handed over; refused, no such host, TLS): the service saw nothing, so nothing was spent.
        if (recorded !== null && (!handedOver || (err instanceof NetworkError && !err.connected))) this.limiter.refund(spec.route, recorded);
        else if (recorded !== null) this.limiter.settle(spec.route, recorded);
        const transient = err instanceof PowprimeError && err.transient;
        if (!transient || attempt >= attempts || signal?.aborted) throw err;
        // A 429 banned the host, and the limiter waits that out on the next
        // attempt; a ban shorter than the backoff (Retry-After: 0) still gets the backoff.
        const banned = err instanceof RateLimitedError ? err.retryAt - this.clock.now() : 0;
        if (banned < delay) await this.clock.sleep(delay, signal);
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
      const until = banUntil(res.headers['retry-after'], this.clock.now(), this.o.banMs ?? DEFAULT_BAN_MS);
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

/** The longest a probe before a rate-limit wait waits for the host to take the connection. */
const PROBE_TIMEOUT_MS = 5_000;
