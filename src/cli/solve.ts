import type { Command } from 'commander';
import { solvePow } from '../pow/solve.ts';
import { BACKEND_CHOICES, type BackendChoice } from '../backend.ts';
import { checkOneOf } from '../validate.ts';
import { InterruptedError } from '../errors.ts';
import { formatRate, parseBigArg, parseIntArg } from './args.ts';
import { StatusLine } from './status.ts';

export function registerSolve(program: Command): void {
  program
    .command('solve')
    .description('find the digit string S whose SHA-256(nonce‖S) starts with <difficulty> hex zeros')
    .argument('<nonce>', 'the challenge nonce')
    .argument('<difficulty>', 'leading 0 hex characters required (0-64)')
    .option('--threads <n>', 'worker threads (default: one per core)')
    .option('--backend <name>', 'auto, native or js', 'auto')
    .option('--max-attempts <n>', 'give up after this many candidates')
    .option('--json', 'print {"solution","counter","attempts","elapsedMs","backend"}')
    .action(async (nonce: string, difficultyText: string, opts: { threads?: string; backend: string; maxAttempts?: string; json?: boolean }) => {
      const difficulty = parseIntArg('difficulty', difficultyText, 0, 64);
      const threads = opts.threads === undefined ? undefined : parseIntArg('--threads', opts.threads, 1, 256);
      const backend = checkOneOf<BackendChoice>('--backend', opts.backend, BACKEND_CHOICES);
      const maxAttempts = opts.maxAttempts === undefined ? undefined : parseBigArg('--max-attempts', opts.maxAttempts);
      const controller = new AbortController();
      const onSigint = (): void => controller.abort(new InterruptedError());
      process.once('SIGINT', onSigint);
      const status = new StatusLine();
      try {
        const r = await solvePow(
          { nonce, difficulty },
          {
            ...(threads !== undefined ? { threads } : {}),
            ...(maxAttempts !== undefined ? { maxAttempts } : {}),
            backend,
            signal: controller.signal,
            onProgress: (p) => status.update(`searching: ${(p.attempts / 1e6).toFixed(1)} M candidates, ${formatRate(p.hashRate)}`),
          },
        );
        status.clear();
        if (opts.json) {
          process.stdout.write(
            `${JSON.stringify({ solution: r.solution, counter: r.counter.toString(), attempts: r.attempts, elapsedMs: Math.round(r.elapsedMs * 1000) / 1000, backend: r.backend })}\n`,
          );
        } else {
          process.stdout.write(`${r.solution}\n`);
        }
      } finally {
        status.clear();
        process.off('SIGINT', onSigint);
      }
    });
}
