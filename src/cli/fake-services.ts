import type { Command } from 'commander';
import { startFakeServices } from '../fake-services/index.ts';
import { MAX_DIFFICULTY, MAX_PORT, MIN_DIFFICULTY } from '../limits.ts';
import { checkInteger } from '../validate.ts';
import { parseDuration, parseIntArg } from './args.ts';
import { interruptSignal } from './interrupt.ts';

/** Short, so that a first `question ask --wait` answers at once; `--answer-delay 10m` gives the spec's pace. */
const DEFAULT_ANSWER_DELAY = '5s';

/**
 * What the banner says after the addresses: how the clients talk to these
 * servers quickly, and which answers carry a file.
 */
function bannerAdvice(limits: boolean, answerDelay: string, fileWord: string): string {
  const answers = `  answers come ${answerDelay} after a question; an answer carries a file (notes.txt) when its question contains "${fileWord}"\n`;
  return limits
    ? `${answers}  the clients keep the same limits (a question a minute, a look at an answer a minute); for quick trials\n  run this with --no-limits, and the clients with --no-limits too\n`
    : `${answers}  give the clients --no-limits, or they keep the spec's pace (a question a minute), e.g.\n  powprime question ask --no-limits --wait "a question with a file"\n`;
}

export function registerFakeServices(program: Command): void {
  program
    .command('fake-services')
    .description('run local stand-ins for the question, registry and ad services (offline work); Ctrl-C stops them')
    .option('--port <n>', 'port on 127.0.0.1; 0 takes any free one', '0')
    .option('--difficulty <d>', 'proof-of-work difficulty of the question service', '4')
    .option('--answer-delay <duration>', 'time from a question to its answer, e.g. 30s, or 10m as the spec has it', DEFAULT_ANSWER_DELAY)
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
          `fake question, registry and ad services on ${base}, ${opts.limits ? "with the spec's rate limits" : 'no rate limits'}; for the CLI:\n` +
            `  export POWPRIME_QUESTION_URL=${base} POWPRIME_REGISTRY_URL=${base} POWPRIME_ADS_URL=${base}\n` +
            bannerAdvice(opts.limits, opts.answerDelay, fake.question.o.fileWord),
        );
      }
      // Serves until SIGINT, SIGTERM or SIGHUP.
      if (!interruptSignal.aborted) await new Promise((resolve) => interruptSignal.addEventListener('abort', resolve, { once: true }));
      await fake.close();
    });
}
