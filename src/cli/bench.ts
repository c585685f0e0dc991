import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { checkOneOf } from '../validate.ts';
import { collectSizes, parseSizes } from './moduli-sizes.ts';
import { replaceablePath } from './out-path.ts';
import { checkInputFile } from './read-input.ts';
import { StatusLine } from './status.ts';

interface BenchOpts {
  quick?: boolean;
  verbose?: boolean;
  json?: boolean;
  suite: string;
  save?: string;
  report?: string;
  compare?: string;
  moduliBits?: string[];
}

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('side-by-side benchmarks with ratios against baselines measured in the same run')
    .addHelpText(
      'after',
      '\nIt prints the headline figures, the goals and a verdict; --verbose adds every table.\n' +
        '\nThe exit code is 0 whatever the figures: a goal missed is reported, not an error. A goal missed while the machine\n' +
        'was busy (others’ load before or during the run, or repeated runs that disagree) is reported as not judged. --quick judges only the goals\n' +
        'its sizes measure; the full run (about a quarter of an hour on 2 cores; --suite moduli an hour or more) judges them all.\n' +
        '\nExamples:\n  powprime bench --quick\n  powprime bench --quick --verbose\n  powprime bench --suite moduli --moduli-bits 8192 --save m8192.json\n  powprime bench --suite prime --save before.json\n  powprime bench --suite prime --compare before.json --report bench.html',
    )
    .option('--quick', 'fewer and shorter runs (about a minute)')
    .option('--verbose', 'print every table too, the one a row per nonce length included (--json, --save and --report always hold every row)')
    .option('--json', 'print the result (one schema for every suite) as JSON')
    .option('--suite <name>', 'pow, prime, moduli or all (pow and prime; moduli, minutes to an hour beside ssh-keygen, runs when named)', 'all')
    .option('--save <file.json>', 'keep the result, to --compare a later run with')
    .option('--report <file.html>', 'write a self-contained HTML page with SVG charts of the result (needs the optional vega and vega-lite: npm install vega vega-lite)')
    .option('--compare <old.json>', 'show each figure’s change against a result saved with --save')
    .option('--moduli-bits <list>', 'with --suite moduli (not --quick): only these sizes, comma-separated or repeated, e.g. 8192 or 2048,8192 (default: 2048, 3072 and 8192)', collectSizes)
    .action(async (opts: BenchOpts) => {
      const suite = checkOneOf('--suite', opts.suite, ['pow', 'prime', 'moduli', 'all'] as const);
      if (opts.moduliBits !== undefined && (suite !== 'moduli' || opts.quick)) throw new RangeError('--moduli-bits goes with --suite moduli, without --quick');
      const moduliSizes = opts.moduliBits === undefined ? undefined : parseSizes(opts.moduliBits, '--moduli-bits');
      // Where the result goes is judged before minutes of measuring, as every other --out is: a folder
      // that is missing or read-only, or a directory given as the file, would lose the run at its end.
      const save = opts.save === undefined ? undefined : replaceablePath(opts.save, '--save');
      const report = opts.report === undefined ? undefined : replaceablePath(opts.report, '--report');
      // The suites load only here: they are not part of the library or the other commands.
      const [{ runPowBench }, { runPrimeBench }, { runModuliBench }, { formatReport, compareRuns }, schema, noise, cores] = await Promise.all([
        import('../../bench/pow.ts'),
        import('../../bench/prime.ts'),
        import('../../bench/moduli.ts'),
        import('../../bench/report.ts'),
        import('../../bench/schema.ts'),
        import('../../bench/noise.ts'),
        import('../../bench/cores.ts'),
      ]);
      // Without the report's libraries (optional), say so before minutes of measuring, not after.
      if (opts.report !== undefined) await Promise.all([import('vega'), import('vega-lite')]);
      // A bad --compare file is refused before minutes of measuring, not after.
      let old: import('../../bench/schema.ts').BenchResult | undefined;
      if (opts.compare !== undefined) {
        checkInputFile(opts.compare, `--compare ${opts.compare}`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(readFileSync(opts.compare, 'utf8'));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code) throw err;
          throw new RangeError(`--compare ${opts.compare} is not JSON`);
        }
        old = schema.checkResult(parsed, `--compare ${opts.compare}`);
      }
      const status = new StatusLine();
      const started = performance.now();
      let step = 0;
      let stepName = '';
      const line = (ms: number): string => `bench [${step}] ${Math.round(ms / 1000)} s: ${stepName}…`;
      const onStep = (name: string): void => {
        const ms = Math.round(performance.now() - started);
        step++;
        stepName = name;
        status.update(line(ms), { step, name, elapsedMs: ms });
      };
      // The time so far moves on between steps, some of which take minutes (a JSON event is a step's alone).
      const ticker = setInterval(() => step && status.update(line(performance.now() - started)), 1000);
      ticker.unref();
      const quick = Boolean(opts.quick);
      const machine = schema.machineInfo();
      // Before our own threads add to it: the load is the rest of the machine's work.
      const loadBefore = await noise.loadNow();
      const markBefore = noise.cpuMark();
      const probeStep = 'the PoW kernel on each core, alone and all at once';
      onStep(probeStep);
      const coresBefore = await cores.probeCores();
      const pow = suite === 'pow' || suite === 'all' ? await runPowBench({ quick, onStep }) : null;
      const prime = suite === 'prime' || suite === 'all' ? await runPrimeBench({ quick, onStep }) : null;
      const moduli = suite === 'moduli' ? await runModuliBench({ quick, onStep, ...(moduliSizes ? { sizes: moduliSizes } : {}) }) : null;
      onStep(probeStep);
      const coresAfter = await cores.probeCores();
      const during = noise.othersDuring(markBefore, noise.cpuMark());
      clearInterval(ticker);
      status.clear();
      const rows = [...(pow?.rows ?? []), ...(prime?.rows ?? []), ...(moduli?.rows ?? [])];
      const quiet = noise.judgeNoise(rows, loadBefore, machine.cores, { before: coresBefore, after: coresAfter }, during);
      const result = {
        schema: schema.SCHEMA_VERSION,
        quick,
        machine,
        rows,
        targets: noise.withVerdicts([...(pow?.targets ?? []), ...(prime?.targets ?? []), ...(moduli?.targets ?? [])], quiet),
        skipped: [...(pow?.skipped ?? []), ...(prime?.skipped ?? []), ...(moduli?.skipped ?? [])],
        noise: quiet,
        ...(pow ? { pow: pow.summary } : {}),
      };
      const comparison = old ? compareRuns(result, old) : undefined;
      if (save) writeFileAtomic(save, `${JSON.stringify(result, null, 1)}\n`, 0o644);
      if (report) {
        const { htmlReport } = await import('../../bench/html-report.ts');
        writeFileAtomic(report, await htmlReport(result, comparison), 0o644);
      }
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(comparison ? { ...result, changes: Object.fromEntries(comparison.changes), machineNote: comparison.machineNote } : result, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${formatReport(result, comparison, { verbose: Boolean(opts.verbose) })}\n`);
      if (opts.report) process.stdout.write(`\nreport: ${opts.report}\n`);
    });
}
