/** What every `powprime question` subcommand shares: its flags, and how its action gets a client and a status line. */
import type { Command } from 'commander';
import { QuestionClient } from '../clients/question/client.ts';
import { clientOptions, serviceFlags, withCommand, type ServiceFlags } from './service-command.ts';
import { StatusLine } from './status.ts';

export interface QuestionFlags extends ServiceFlags {
  homepageUrl?: string;
}

/** The service flags (service-command.ts) and --homepage-url, after the subcommand's own options. */
export function questionFlags(c: Command, flags?: { timeout?: boolean }): Command {
  return serviceFlags(c, 'question', 'POWPRIME_QUESTION_URL', flags).option('--homepage-url <url>', 'service homepage credited with every answer (default: the base URL)');
}

function makeClient(o: QuestionFlags, status: StatusLine): QuestionClient {
  return new QuestionClient({ ...clientOptions(o, 'POWPRIME_QUESTION_URL', status), ...(o.homepageUrl ? { homepageUrl: o.homepageUrl } : {}) });
}

/** A subcommand's action: its client made from the flags, and its status line cleared however it ends. */
export function questionAction(fn: (client: QuestionClient, o: QuestionFlags, status: StatusLine, cmd: Command) => Promise<void>): (...args: unknown[]) => Promise<void> {
  return withCommand<QuestionFlags>(async (cmd, o) => {
    const status = new StatusLine();
    try {
      await fn(makeClient(o, status), o, status, cmd);
    } finally {
      status.clear();
    }
  });
}
