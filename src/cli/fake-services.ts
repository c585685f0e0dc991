import type { Command } from 'commander';
import { startFakeServices } from '../fake-services/index.ts';
import { MAX_DIFFICULTY, MAX_PORT, MIN_DIFFICULTY } from '../limits.ts';
import { checkInteger } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { interruptSignal } from './interrupt.ts';

/** "10m", "90s", "2h", "500ms" or a number of seconds, in milliseconds. */
function parseDuration(name: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new RangeError(`${name} must be a duration such as 90s, 10m, 2h or 500ms (got ${JSON.stringify(text)})`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(m[1]) * unit);
}

export function registerFakeServices(program: Command): void {
  program
    .command('fake-services')
    .description('run local stand-ins for the question, registry and ad services (offline work); Ctrl-C stops them')
    .option('--port <n>', 'port on 127.0.0.1; 0 takes any free one', '0')
    .option('--difficulty <d>', 'proof-of-work difficulty of the question service', '4')
    .option('--answer-delay <duration>', 'time from a question to its answer, e.g. 30s, 10m', '10m')
    .option('--no-limits', "switch the services' rate limits off (pair with the clients' --no-limits)")
    .option('--no-retry-after', 'send 429s without a Retry-After header (the spec does not show one)')
    .option('--verbose', 'one line per request on stderr')
    .option('--json', 'print {"url","question","registry","ads"} instead of sentences')
    .action(async (opts: { port: string; difficulty: string; answerDelay: string; limits: boolean; retryAfter: boolean; verbose?: boolean; json?: boolean }) => {
      const port = checkInteger('--port', parseIntArg('--port', opts.port), 0, MAX_PORT);
      const difficulty = checkInteger('--difficulty', parseIntArg('--difficulty', opts.difficulty), MIN_DIFFICULTY, MAX_DIFFICULTY);
      const answerDelayMs = parseDuration('--answer-delay', opts.answerDelay);
      let fake: Awaited<ReturnType<typeof startFakeServices>>;
      try {
        fake = await startFakeServices({
          port,
          unlimited: !opts.limits,
          retryAfter: opts.retryAfter,
          question: { difficulty, answerDelayMs },
          ...(opts.verbose ? { onRequest: (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`) } : {}),
        });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new RangeError(`--port ${port} is taken by another program; pick another or 0 for any free port`);
        throw err;
      }
      const base = fake.url.href.replace(/\/$/, '');
      // One server answers all three services' routes.
      const urls = { url: fake.url.href, question: base, registry: base, ads: base };
      if (opts.json) process.stdout.write(`${JSON.stringify(urls)}\n`);
      else {
        process.stdout.write(
          `fake question, registry and ad services on ${base}` +
            `${opts.limits ? '' : ', no rate limits'}, answers after ${opts.answerDelay}; for the CLI:\n` +
            `  export POWPRIME_QUESTION_URL=${base} POWPRIME_REGISTRY_URL=${base} POWPRIME_ADS_URL=${base}\n`,
        );
      }
      // Serves until SIGINT, SIGTERM or SIGHUP.
      if (!interruptSignal.aborted) await new Promise((resolve) => interruptSignal.addEventListener('abort', resolve, { once: true }));
      await fake.close();
    });
}
