/** What the question, registry and ads commands share: their flags, how actions get them, and how their clients are made. */
import type { Command } from 'commander';
import type { ServiceClientOptions } from '../clients/http/service-client.ts';
import { MAX_WAIT_SECONDS } from '../limits.ts';
import { checkInteger } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { interruptSignal } from './interrupt.ts';
import { isQuiet } from './progress-mode.ts';
import { StatusLine } from './status.ts';

export interface ServiceFlags {
  baseUrl?: string;
  stateDir?: string;
  /** commander's --no-limits: false when given. */
  limits?: boolean;
  maxWait?: string;
  json?: boolean;
}

/** Adds --base-url, --state-dir, --no-limits, --max-wait and --json. */
export function serviceFlags(c: Command, service: string, envVar: string): Command {
  return c
    .option('--base-url <url>', `${service} address (or ${envVar})`)
    .option('--state-dir <dir>', `rate-limit state, cookies and caches, each kept per host (default: ~/.local/state/powprime/${service})`)
    .option('--no-limits', 'skip the client-side rate limits (only for a local server)')
    .option('--max-wait <seconds>', 'fail (exit 1) instead of waiting longer than this for a rate limit or a ban')
    .option('--json', 'machine-readable output');
}

/**
 * The client options every service command shares. A wait for a rate-limit
 * slot or a ban is announced in one stderr line (terminal or not: a silent
 * hour looks like a hang), with a countdown on a terminal. A stop signal
 * ends waits and GETs at once; a POST already sent is seen through, so its
 * answer (a question id, a prime's keys) is kept.
 */
export function clientOptions(
  o: ServiceFlags,
  envVar: string,
  status = new StatusLine(),
): Pick<ServiceClientOptions, 'baseUrl' | 'defaultBaseUrl' | 'stateDir' | 'limits' | 'maxWaitMs' | 'onWait' | 'signal'> {
  const maxWait = o.maxWait === undefined ? undefined : checkInteger('--max-wait', parseIntArg('--max-wait', o.maxWait), 0, MAX_WAIT_SECONDS);
  const defaultUrl = defaultBaseUrl(envVar);
  return {
    baseUrl: baseUrlFrom(o, envVar),
    ...(defaultUrl !== undefined ? { defaultBaseUrl: defaultUrl } : {}),
    ...(o.stateDir ? { stateDir: o.stateDir } : {}),
    ...(o.limits === false ? { limits: 'off' as const } : {}),
    ...(maxWait !== undefined ? { maxWaitMs: maxWait * 1000 } : {}),
    signal: interruptSignal,
    onWait: (until, route, reason) => {
      status.clear();
      if (!isQuiet()) process.stderr.write(`powprime: ${route} waits ${Math.ceil((until - Date.now()) / 1000)} s: ${reason}\n`);
      countdown(status, until, route);
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
export function baseUrlFrom(o: ServiceFlags, envVar: string): string {
  const url = o.baseUrl ?? process.env[envVar];
  if (!url) throw new TypeError(`--base-url is required (or set ${envVar}): the service address is not built in`);
  // Named as the user gave it, not as the client's baseUrl option.
  const given = o.baseUrl !== undefined ? '--base-url' : envVar;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new TypeError(`${given} must be an absolute http(s) URL (got ${JSON.stringify(url)})`);
  return url;
}

/** The service's default address (its environment variable, used when --base-url is not given), if set and a URL: state files of earlier versions, which carry no host, belong to it. */
export function defaultBaseUrl(envVar: string): string | undefined {
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
