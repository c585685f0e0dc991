/** `powprime question run`: post every prompt of a file and collect the answers within the limits, resuming where the last run stopped. */
import path from 'node:path';
import type { Command } from 'commander';
import type { QuestionClient } from '../clients/question/client.ts';
import { QuestionPipeline, type PipelineOptions } from '../clients/question/pipeline.ts';
import { FileLockedError, InterruptedError } from '../errors.ts';
import { MAX_CHECK_INTERVAL_SECONDS } from '../limits.ts';
import { checkInteger } from '../validate.ts';
import { AnswerSink } from './answer-sink.ts';
import { parseIntArg } from './args.ts';
import { interruptSignal } from './interrupt.ts';
import { questionAction, questionFlags } from './question-flags.ts';
import { readInputBytes, textLines } from './read-input.ts';
import { countdown } from './service-command.ts';
import type { StatusLine } from './status.ts';
import { terminalLine } from './terminal-text.ts';

/** A prompts file past this is not a list of questions for a service that takes a few a day. */
const MAX_PROMPTS_BYTES = 16 << 20;

interface RunFlags {
  prompts: string;
  out?: string;
  filesDir: string;
  firstCheck: string;
  maxInterval: string;
  timeout?: string;
}

export function registerQuestionRun(q: Command): void {
  questionFlags(
    q
      .command('run')
      .requiredOption('--prompts <file>', 'one prompt per line, UTF-8 text (- reads stdin)')
      .option('--out <file.jsonl>', 'append answers as JSON lines here (default: stdout)')
      .option('--files-dir <dir>', 'save attached files here', 'question-files')
      .option('--first-check <seconds>', 'first look for an answer this long after posting (later looks back off)', '300')
      .option('--max-interval <seconds>', 'longest gap between two looks at an unanswered question (below 66 only for a server without limits)', '3960'),
    { timeout: false },
  )
    .description('post every prompt and collect the answers, within the limits; rerun to resume')
    .action(questionAction((client, _o, status, cmd) => runPrompts(client, status, cmd.opts<RunFlags>())));
}

/**
 * A question run's pipeline. One `question run` per state dir and host: the
 * pipeline locks its state file (pipeline-<host>.lock beside it), and a second
 * run is refused at once in the CLI's words, naming the holder.
 */
function openPipeline(client: QuestionClient, o: Omit<PipelineOptions, 'client' | 'stateDir'>): QuestionPipeline {
  try {
    return new QuestionPipeline({ client, stateDir: client.stateDir, ...o });
  } catch (err) {
    if (!(err instanceof FileLockedError)) throw err;
    throw new RangeError(`--state-dir ${client.stateDir} is in use by another question run against ${client.baseUrl.host} (${err.holder}); wait for it to end or stop it, or use another --state-dir`);
  }
}

async function runPrompts(client: QuestionClient, status: StatusLine, opts: RunFlags): Promise<void> {
  // The pipeline would count a deadline as a failure of each prompt in flight, and drop prompts for it.
  if (opts.timeout !== undefined)
    throw new RangeError('--timeout does not go with question run: it runs until every answer is in; stop it with a signal (its state is kept) or bound the looks with --max-interval');
  const firstCheck = checkInteger('--first-check', parseIntArg('--first-check', opts.firstCheck), 0, MAX_CHECK_INTERVAL_SECONDS);
  const maxInterval = checkInteger('--max-interval', parseIntArg('--max-interval', opts.maxInterval), 1, MAX_CHECK_INTERVAL_SECONDS);
  // Checked as text first: a binary file's "lines" would each be posted, from the service's small daily budget.
  const prompts = textLines(await readInputBytes(opts.prompts, '--prompts', MAX_PROMPTS_BYTES, interruptSignal), `--prompts ${opts.prompts === '-' ? '- (stdin)' : opts.prompts}`)
    .map((l) => l.trim())
    .filter(Boolean);
  // The sink is made once the pipeline holds the state dir, so a refused second run leaves --out alone; answers are delivered only in run().
  let sink!: AnswerSink;
  const pipeline = openPipeline(client, { firstCheckAfterMs: firstCheck * 1000, maxCheckIntervalMs: maxInterval * 1000, deliver: (answer) => sink.deliver(answer) });
  try {
    sink = new AnswerSink(client, opts.filesDir, opts.out);
    const keys = queuePrompts(pipeline, opts.prompts, prompts);
    // A new --out gets the answers to this file's prompts already known, so it holds them all; answers to
    // another prompts file run through the same state dir are not this run's (an answer arriving now to one
    // still awaiting is written, though: it is delivered once, and here).
    const backfilled = opts.out ? sink.backfill(pipeline.answered.filter((a) => keys.has(a.key))) : { written: 0, unavailable: 0 };
    reportProgress(pipeline, status);
    try {
      await pipeline.run({ signal: interruptSignal });
    } finally {
      sink.close();
    }
    // The countdown stops and its line goes before the summary is written.
    status.clear();
    process.stderr.write(summary(pipeline, sink, opts.out, backfilled));
    if (interruptSignal.aborted) throw new InterruptedError((interruptSignal.reason as InterruptedError).signal, 'rerun the same command to resume');
  } finally {
    pipeline.close();
  }
}

/** The prompt file's lines queued by their hashes, which are returned; queued prompts no longer in it are withdrawn. */
function queuePrompts(pipeline: QuestionPipeline, promptsFile: string, prompts: string[]): Set<string> {
  // Keys were once the prompt file's path and line; state saved so is renamed to the prompts' hashes.
  const file = path.resolve(promptsFile);
  for (const [i, p] of prompts.entries()) pipeline.adoptKey(`${file}#${i}`, p);
  const keys = new Set(prompts.map((p) => pipeline.enqueue(p)));
  // A line edited or deleted before its prompt went out: the old text is not posted.
  const withdrawn = pipeline.withdraw(keys);
  if (withdrawn.length) process.stderr.write(`powprime: ${withdrawn.length} queued prompt${withdrawn.length === 1 ? '' : 's'} no longer in ${promptsFile} withdrawn before posting\n`);
  return keys;
}

/** The pipeline's waits as a countdown, its posts on the status line, its failures and drops on stderr. */
function reportProgress(pipeline: QuestionPipeline, status: StatusLine): void {
  pipeline.on('waiting', ({ until, action }) => {
    if (action !== 'deliver') countdown(status, until, action === 'post' ? 'query' : 'the next answer check');
  });
  pipeline.on('posted', ({ id }) => status.update(`posted ${terminalLine(id)}`, { posted: id, ...pipeline.status() }));
  pipeline.on('failed', (e) => process.stderr.write(`powprime: ${terminalLine(e.message)} (will retry)\n`));
  pipeline.on('dropped', (d) => process.stderr.write(`powprime: dropped ${terminalLine(JSON.stringify(d.prompt))}: ${terminalLine(d.reason)}\n`));
}

/** The run's closing line: the pipeline's counts, and where this run's answers went. */
function summary(pipeline: QuestionPipeline, sink: AnswerSink, out: string | undefined, backfilled: { written: number; unavailable: number }): string {
  const s = pipeline.status();
  const where = out
    ? ` (${sink.count} in ${out}${backfilled.written ? `, ${backfilled.written} of them from earlier runs` : ''}${backfilled.unavailable ? `; ${backfilled.unavailable} answered before answers were kept are only in earlier outputs` : ''})`
    : ` (${sink.count} of them on stdout from this run)`;
  return `${s.answered} answered${where}, ${s.awaiting} awaiting, ${s.queued} queued, ${s.dropped} dropped${interruptSignal.aborted ? ' (stopped; rerun to resume)' : ''}\n`;
}
