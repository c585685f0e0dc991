/** What the question, registry and ads commands share: their flags and how actions get them. */
import type { Command } from 'commander';

export interface ServiceFlags {
  baseUrl?: string;
  stateDir?: string;
  /** commander's --no-limits: false when given. */
  limits?: boolean;
  json?: boolean;
}

/** Adds --base-url, --state-dir, --no-limits and --json. */
export function serviceFlags(c: Command, service: string, envVar: string): Command {
  return c
    .option('--base-url <url>', `${service} address (or ${envVar})`)
    .option('--state-dir <dir>', `rate-limit state, cookies and caches (default: ~/.local/state/powprime/${service})`)
    .option('--no-limits', 'skip the client-side rate limits (only for a local server)')
    .option('--json', 'machine-readable output');
}

/** --base-url, else the environment variable; the services' addresses are not built in. */
export function baseUrlFrom(o: ServiceFlags, envVar: string): string {
  const url = o.baseUrl ?? process.env[envVar];
  if (!url) throw new TypeError(`--base-url is required (or set ${envVar}): the service address is not built in`);
  return url;
}

/** commander calls actions with (args…, options, command): hand the action its command and options. */
export function withCommand<O extends ServiceFlags>(fn: (cmd: Command, o: O) => Promise<void>): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    const cmd = args[args.length - 1] as Command;
    await fn(cmd, cmd.opts<O>());
  };
}
