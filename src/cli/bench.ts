import type { Command } from 'commander';
import { runPowBench } from '../../bench/pow.ts';
import { formatPowReport } from '../../bench/report.ts';
import { StatusLine } from './status.ts';

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('side-by-side benchmarks with ratios against baselines measured in the same run')
    .option('--quick', 'fewer and shorter runs (about 30 s)')
    .option('--json', 'print the results as JSON')
    .action(async (opts: { quick?: boolean; json?: boolean }) => {
      const status = new StatusLine();
      const pow = await runPowBench({ quick: Boolean(opts.quick), onStep: (name) => status.update(`bench: ${name}…`) });
      status.clear();
      if (opts.json) process.stdout.write(`${JSON.stringify({ pow }, null, 2)}\n`);
      else process.stdout.write(`${formatPowReport(pow)}\n`);
    });
}
