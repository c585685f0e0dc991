import type { Command } from 'commander';
import { StatusLine } from './status.ts';
import { checkOneOf } from '../validate.ts';

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('side-by-side benchmarks with ratios against baselines measured in the same run')
    .option('--quick', 'fewer and shorter runs (about 30 s)')
    .option('--json', 'print the results as JSON')
    .option('--suite <name>', 'pow, prime or all', 'all')
    .action(async (opts: { quick?: boolean; json?: boolean; suite: string }) => {
      const suite = checkOneOf('--suite', opts.suite, ['pow', 'prime', 'all'] as const);
      // The suites load only here: they are not part of the library or the other commands.
      const [{ runPowBench }, { runPrimeBench }, { formatPowReport, formatPrimeReport }] = await Promise.all([
        import('../../bench/pow.ts'),
        import('../../bench/prime.ts'),
        import('../../bench/report.ts'),
      ]);
      const status = new StatusLine();
      const onStep = (name: string): void => status.update(`bench: ${name}…`);
      const quick = Boolean(opts.quick);
      const pow = suite === 'prime' ? null : await runPowBench({ quick, onStep });
      const prime = suite === 'pow' ? null : await runPrimeBench({ quick, onStep });
      status.clear();
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ pow, prime }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
        return;
      }
      const parts = [pow && formatPowReport(pow), prime && formatPrimeReport(prime)].filter(Boolean);
      process.stdout.write(`${parts.join('\n\n')}\n`);
    });
}
