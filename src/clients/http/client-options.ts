/**
 * The options every service client takes (ServiceClientOptions), their names
 * for the unknown-key check, and their checks: each client adds its own
 * options (ClientOptionNames) and checks them with optionalNumber.
 */
import { type Clock, MAX_TIMER_MS } from '../clock.ts';
import { argumentError, checkSignal, show } from '../../validate.ts';
import { optionNames } from '../../option-checks.ts';
import { pathKind } from '../../fs/path-kind.ts';
import type { Limits } from './rate-limiter.ts';
import { MAX_BAN_MS } from './retry-after.ts';

export interface ServiceClientOptions {
  baseUrl: string | URL;
  /** Where limiter state, cookies and caches are kept, each file per host (default: ~/.local/state/powprime/<service>). */
  stateDir?: string;
  /**
   * Only read the state dir, never write or lock it (for a caller that changes nothing, given a
   * folder it cannot write): the limiter's saved record (a ban, other processes' calls) and cookies
   * are read once, without the lock, and this client's own calls, cookies and cached answers are
   * kept in memory. Default false: every call is recorded on disk before it is sent.
   */
  readOnlyState?: boolean;
  /**
   * Before each rate-limit wait, make a TCP connect to the service (not a request: nothing is spent)
   * and fail at once with a NetworkError when it is refused or the host is unknown, rather than after
   * the wait. Default false: the connect goes straight to the host, past any proxy or dispatcher set
   * for fetch, which would refuse it where only the proxy reaches out. The CLI turns it on.
   */
  probeBeforeWait?: boolean;
  /**
   * The service's default address (the CLI's is its environment variable, e.g. POWPRIME_REGISTRY_URL).
   * State files of earlier versions carry no host (`keys.json`, `pipeline.json`): they belong to this
   * address, and are used for it while its per-host file does not exist (see hostFile).
   */
  defaultBaseUrl?: string | URL;
  /** Per-route limits: a route named here gets these windows, the others keep the spec's; or 'off' (only for loopback base URLs). */
  limits?: Limits | 'off';
  /** How long a 429 without a usable Retry-After bans the host (default 60 minutes: the question service's bans last 40 to 60). */
  banMs?: number;
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

/** The options every client takes; each client adds its own (ClientOptionNames). */
export const SERVICE_CLIENT_OPTIONS = optionNames<ServiceClientOptions>()([
  'baseUrl',
  'defaultBaseUrl',
  'stateDir',
  'readOnlyState',
  'probeBeforeWait',
  'limits',
  'banMs',
  'clock',
  'timeoutMs',
  'maxWaitMs',
  'attempts',
  'backoffMs',
  'onWait',
  'signal',
]);

/** A client class's name and the options it adds to SERVICE_CLIENT_OPTIONS: any other key is refused. */
export interface ClientOptionNames {
  client: string;
  own: readonly string[];
}

/** A numeric option, if given: a TypeError naming it when it is no number, a RangeError when `ok` refuses it (`text` says what it must be). */
export function optionalNumber<O extends object>(opts: O, name: keyof O & string, ok: (n: number) => boolean, text: string): void {
  const v = opts[name];
  if (v === undefined) return;
  if (typeof v !== 'number') throw argumentError(TypeError, name, `must be a number (got ${show(v)})`);
  if (!ok(v)) throw argumentError(RangeError, name, `must be ${text} (got ${show(v)})`);
}

/** Every option checked where it is given, so a typo fails at once rather than as a retry loop or a stalled wait. */
export function checkServiceClientOptions(opts: ServiceClientOptions): void {
  // A request's timeout is one timer: past setTimeout's range Node fires it at once.
  optionalNumber(opts, 'timeoutMs', (n) => n > 0 && n <= MAX_TIMER_MS, `a number of milliseconds from 1 to ${MAX_TIMER_MS} (about 24 days)`);
  optionalNumber(opts, 'maxWaitMs', (n) => n >= 0 && !Number.isNaN(n), 'a number of milliseconds ≥ 0');
  optionalNumber(opts, 'attempts', (n) => Number.isInteger(n) && n >= 1 && n <= 100, 'a whole number from 1 to 100');
  optionalNumber(opts, 'backoffMs', (n) => Number.isFinite(n) && n >= 0, 'a number of milliseconds ≥ 0');
  optionalNumber(opts, 'banMs', (n) => Number.isFinite(n) && n > 0 && n <= MAX_BAN_MS, `a number of milliseconds from 1 to ${MAX_BAN_MS} (a day)`);
  if (opts.stateDir !== undefined && (typeof opts.stateDir !== 'string' || opts.stateDir === '')) throw argumentError(TypeError, 'stateDir', `must be a non-empty path (got ${show(opts.stateDir)})`);
  const kind = opts.stateDir === undefined ? 'none' : pathKind(opts.stateDir);
  if (kind !== 'none' && kind !== 'folder')
    throw argumentError(RangeError, 'stateDir', `must be a folder, or a path where one can be made (${show(opts.stateDir)} ${kind === 'blocked' ? 'runs through a file' : 'is not a folder'})`);
  if (opts.onWait !== undefined && typeof opts.onWait !== 'function') throw argumentError(TypeError, 'onWait', `must be a function (got ${show(opts.onWait)})`);
  checkSignal('signal', opts.signal);
  if (opts.clock !== undefined && (opts.clock === null || typeof opts.clock.now !== 'function' || typeof opts.clock.sleep !== 'function')) {
    throw argumentError(TypeError, 'clock', 'must have now() and sleep(ms, signal)');
  }
  const limits = opts.limits;
  if (limits === undefined || limits === 'off') return;
  if (limits === null || typeof limits !== 'object' || Array.isArray(limits)) throw argumentError(TypeError, 'limits', `must be 'off' or {route: [{limit, periodMs}]} (got ${show(limits)})`);
  for (const [route, windows] of Object.entries(limits)) {
    const ok = Array.isArray(windows) && windows.every((w) => w !== null && typeof w === 'object' && Number.isInteger(w.limit) && w.limit >= 1 && Number.isFinite(w.periodMs) && w.periodMs > 0);
    if (!ok) throw argumentError(RangeError, 'limits', `of ${route} must be a list of {limit: a whole number ≥ 1, periodMs: a positive number}`);
  }
}
