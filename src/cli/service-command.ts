/** What the question, registry and ads commands share: their flags, how actions get them, and how their clients are made. */
import { pathKind } from '../fs/path-kind.ts';
import { type Command, Option } from 'commander';
import { MAX_TIMER_MS, realClock, type Clock } from '../clients/clock.ts';
import { DeadlineError, RateLimitWaitError, formatDuration } from '../clients/errors.ts';
import { linkSignals } from '../clients/http/linked-signal.ts';
import { isLoopback } from '../clients/http/transport.ts';
import type { ServiceClientOptions } from '../clients/http/client-options.ts';
import { MAX_WAIT_SECONDS } from '../limits.ts';
import { checkHttpUrl, checkInteger } from '../validate.ts';
import { parseDuration, parseIntArg } from './args.ts';
import { interruptSignal } from './interrupt.ts';
import { isQuiet } from './progress-mode.ts';
import { StatusLine } from './status.ts';

export interface ServiceFlags {
  baseUrl?: string;
  stateDir?: string;
  /** commander's --no-limits: false when given. */
  limits?: boolean;
  maxWait?: string;
  timeout?: string;
  json?: boolean;
}

/**
 * Adds --base-url, --state-dir, --no-limits, --max-wait, --timeout and --json.
 * A command that runs until its work is done takes `timeout: false`: --timeout
 * is then left out of its help, and parsed only so the command can say why not.
 */
export function serviceFlags(c: Command, service: string, envVar: string, { timeout = true }: { timeout?: boolean } = {}): Command {
  const timeoutFlag = new Option('--timeout <duration>', 'fail (exit 1) when the command has not ended within this, waits and retries included, e.g. 30s, 5m (default: no bound)');
  return c
    .option('--base-url <url>', `${service} address (or ${envVar})`)
    .option('--state-dir <dir>', `rate-limit state, cookies and caches, each kept per host (default: ~/.local/state/powprime/${service})`)
    .option('--no-limits', 'skip the client-side rate limits (only for a local server)')
    .option('--max-wait <seconds>', 'fail (exit 1) instead of waiting longer than this for a rate limit or a ban')
    .addOption(timeout ? timeoutFlag : timeoutFlag.hideHelp())
    .option('--json', 'machine-readable output');
}

/**
 * The client options every service command shares. A wait for a rate-limit
 * slot or a ban is announced in one stderr line (terminal or not: a silent
 * hour looks like a hang), with a countdown on a terminal. A stop signal
 * ends waits and GETs at once; a POST already sent is seen through, so its
 * answer (a question id, a prime's keys) is kept.
 *
 * With --timeout, a deadline from now does the same, its reason a
 * DeadlineError ("no answer within 30s", exit 1): it is linked into the
 * client's signal and its clock's sleeps (so the command's own waits, such as
 * `question ask --wait`'s, end at it too), and a rate-limit wait that would
 * end after it fails at once instead.
 */
export function clientOptions(
  o: ServiceFlags,
  envVar: string,
  status = new StatusLine(),
): Pick<ServiceClientOptions, 'baseUrl' | 'defaultBaseUrl' | 'stateDir' | 'limits' | 'maxWaitMs' | 'onWait' | 'signal' | 'clock' | 'probeBeforeWait'> {
  const maxWait = o.maxWait === undefined ? undefined : checkInteger('--max-wait', parseIntArg('--max-wait', o.maxWait), 0, MAX_WAIT_SECONDS);
  const timeoutMs = o.timeout === undefined ? undefined : parseTimeout(o.timeout);
  const defaultUrl = defaultBaseUrl(envVar);
  const [baseUrl, url] = baseUrlFrom(o, envVar);
  // Said in the flags' words before the client says it in the API's (limits: 'off', baseUrl).
  if (o.limits === false && !isLoopback(url)) throw new RangeError(`--no-limits is for a service on this machine (a loopback --base-url), not ${url.host}`);
  if (o.stateDir === '') throw new RangeError('--state-dir must name a folder (got "")');
  // Made when missing, as the default is; a file in its place is named here, not by the first state file under it.
  if (o.stateDir) checkStateDir(o.stateDir);
  const deadline = timeoutMs === undefined ? null : deadlineSignal(timeoutMs, url.host);
  return {
    baseUrl,
    ...(defaultUrl !== undefined ? { defaultBaseUrl: defaultUrl } : {}),
    ...(o.stateDir ? { stateDir: o.stateDir } : {}),
    ...(o.limits === false ? { limits: 'off' as const } : {}),
    ...(maxWait !== undefined ? { maxWaitMs: maxWait * 1000 } : {}),
    // Linked for the process's life: the command is the process.
    signal: deadline ? linkSignals([interruptSignal, deadline.signal]).signal : interruptSignal,
    // A service gone away is said at once, not after a rate-limit wait (docs/cli.md).
    probeBeforeWait: true,
    ...(deadline ? { clock: deadlineClock(deadline.signal) } : {}),
    onWait: (until, route, reason) => {
      if (deadline && until > deadline.at) {
        throw new RateLimitWaitError(route, until, `${reason}, after --timeout ${formatDuration(deadline.ms)} ends`);
      }
      status.clear();
      if (!isQuiet()) process.stderr.write(`powprime: ${route} waits ${Math.ceil((until - Date.now()) / 1000)} s: ${reason}\n`);
      countdown(status, until, route);
    },
  };
}

/** The longest --timeout: as long as the longest --max-wait (a year). */
const MAX_TIMEOUT_MS = MAX_WAIT_SECONDS * 1000;

/** --timeout's text in milliseconds: a duration (args.ts, as fake-services --answer-delay) from 1 ms to a year. */
function parseTimeout(text: string): number {
  const ms = parseDuration('--timeout', text);
  if (ms < 1 || ms > MAX_TIMEOUT_MS) throw new RangeError(`--timeout must be from 1ms to ${formatDuration(MAX_TIMEOUT_MS)} (got ${JSON.stringify(text)})`);
  return ms;
}

/**
 * A signal that aborts `ms` from now with a DeadlineError naming `host`. Its
 * timer does not keep the process alive: a command that is done leaves.
 */
function deadlineSignal(ms: number, host: string): { signal: AbortSignal; at: number; ms: number } {
  const controller = new AbortController();
  const at = Date.now() + ms;
  // In steps: setTimeout's range ends at about 24.8 days.
  const arm = (): void => {
    const left = at - Date.now();
    if (left <= 0) controller.abort(new DeadlineError(ms, host, '--timeout'));
    else setTimeout(arm, Math.min(left, MAX_TIMER_MS)).unref();
  };
  arm();
  return { signal: controller.signal, at, ms };
}

/** The real clock, whose sleeps also end (with the deadline's reason) when the deadline passes. */
function deadlineClock(deadline: AbortSignal): Clock {
  return {
    now: () => realClock.now(),
    sleep: async (ms, signal) => {
      const linked = linkSignals(signal ? [signal, deadline] : [deadline]);
      try {
        await realClock.sleep(ms, linked.signal);
      } finally {
        linked.dispose();
      }
    },
  };
}

/** A countdown to the next slot (on a terminal; a tick each second under --progress=json). A later countdown or status.clear() stops it. */
export function countdown(status: StatusLine, until: number, route: string): void {
  const tick = (): void => {
    const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    status.update(`${route} goes out in ${Math.floor(left / 60)}m${String(left % 60).padStart(2, '0')}s`, { waitingFor: route, etaMs: Math.max(0, Math.round(until - Date.now())) });
    if (left > 0) status.schedule(tick, 1000);
    else status.clear();
  };
  tick();
}

/** --base-url, else the environment variable; the services' addresses are not built in. */
function baseUrlFrom(o: ServiceFlags, envVar: string): [string, URL] {
  const text = o.baseUrl ?? process.env[envVar];
  if (!text) throw new TypeError(`--base-url is required (or set ${envVar}): the service address is not built in`);
  // Named as the user gave it, not as the client's baseUrl option.
  return [text, checkHttpUrl(o.baseUrl !== undefined ? '--base-url' : envVar, text)];
}

/** The service's default address (its environment variable, used when --base-url is not given), if set and a URL: state files of earlier versions, which carry no host, belong to it. */
function defaultBaseUrl(envVar: string): string | undefined {
  const url = process.env[envVar];
  return url && URL.canParse(url) ? url : undefined;
}

/** commander calls actions with (args…, options, command): hand the action its command and options. */
export function withCommand<O extends ServiceFlags>(fn: (cmd: Command, o: O) => Promise<void>): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    const cmd = args[args.length - 1] as Command;
    await fn(cmd, cmd.opts<O>());
  };
}

/** Refuses a --state-dir that is a file, or lies under one, in the flag's words (a missing one is made). */
function checkStateDir(dir: string): void {
  const kind = pathKind(dir);
  if (kind === 'blocked') throw new RangeError(`--state-dir ${dir} lies under a file, not a folder`);
  if (kind === 'file' || kind === 'other') throw new RangeError(`--state-dir ${dir} is not a folder`);
}
