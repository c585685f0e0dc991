import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { replaceablePath } from './out-path.ts';
import path from 'node:path';
import type { Command } from 'commander';
import { attributionText } from '../clients/question/attribution.ts';
import { isoTime } from '../clients/clock.ts';
import { sanitizeFilename } from '../clients/http/file-names.ts';
import { QuestionClient, threadJson, type ItemError, type Thread, type ThreadItem } from '../clients/question/client.ts';
import { QuestionPipeline, type PipelineOptions } from '../clients/question/pipeline.ts';
import { FileLockedError, InterruptedError } from '../errors.ts';
import { AnswerSink } from './answer-sink.ts';
import { exitFailed } from './exit-failed.ts';
import { MINUTE } from '../clients/http/rate-limiter.ts';
import { MAX_CHECK_INTERVAL_SECONDS } from '../limits.ts';
import { checkInteger } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { interruptSignal } from './interrupt.ts';
import { info } from './progress-mode.ts';
import { StatusLine } from './status.ts';
import { terminalLine, terminalText } from './terminal-text.ts';
import { clientOptions, countdown, serviceFlags, withCommand, type ServiceFlags } from './service-command.ts';

/** `ask --wait --no-limits`: the gap between two looks at the answer. */
const NO_LIMITS_LOOK_MS = 2000;

interface Common extends ServiceFlags {
  homepageUrl?: string;
}

function makeClient(o: Common, status: StatusLine): QuestionClient {
  return new QuestionClient({ ...clientOptions(o, 'POWPRIME_QUESTION_URL', status), ...(o.homepageUrl ? { homepageUrl: o.homepageUrl } : {}) });
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

/** A thread for a person: every server string with its controls escaped (--json keeps them verbatim). */
function printThread(t: Thread | ThreadItem): string {
  const lines = [];
  if ('id' in t) lines.push(`# ${terminalLine(t.id)}`);
  lines.push(`Q: ${terminalText(t.question)}`, `A (${terminalLine(t.answeree)}, ${isoTime(t.time * 1000)}):`, terminalText(t.answer));
  if (t.files?.length) lines.push(`Files: ${t.files.map((f) => `${terminalLine(f.filename)} (${terminalLine(f.mimetype)}, ${f.size} bytes)`).join(', ')}`);
  lines.push(`— ${terminalLine(attributionText(t.attribution))}`);
  return `${lines.join('\n')}\n`;
}

function printItems(items: (ThreadItem | ItemError)[], json?: boolean): void {
  if (json) return void process.stdout.write(`${JSON.stringify(items.map((i) => ('error' in i ? i : threadJson(i))))}\n`);
  for (const i of items) process.stdout.write('error' in i ? `# ${terminalLine(i.id ?? '?')}: ${terminalLine(i.error)}\n` : `${printThread(i)}\n`);
}

export function registerQuestion(program: Command): void {
  const q = program.command('question').description('the question service: ask, read answers and files (answers are written by people)');
  const common = (c: Command, flags?: { timeout?: boolean }): Command =>
    serviceFlags(c, 'question', 'POWPRIME_QUESTION_URL', flags).option('--homepage-url <url>', 'service homepage credited with every answer (default: the base URL)');
  const run = (fn: (client: QuestionClient, o: Common, status: StatusLine, cmd: Command) => Promise<void>) =>
    withCommand<Common>(async (cmd, o) => {
      const status = new StatusLine();
      try {
        await fn(makeClient(o, status), o, status, cmd);
      } finally {
        status.clear();
      }
    });

  common(q.command('ask').argument('<prompt>').option('--wait', 'wait for the answer and print it'))
    .description('post a question (solves the proof of work); prints its id')
    .action(
      run(async (client, o, status, cmd) => {
        const opts = cmd.opts<{ wait?: boolean }>();
        const prompt = cmd.args[0]!;
        // A signal during the proof of work posts nothing; one during the POST still gets the id.
        const id = await client.query(prompt, { signal: interruptSignal });
        // At once, whatever follows: a question spends one of the day's few posts, and its id is the only way back to it.
        const later = `powprime question answer ${terminalLine(id)}`;
        info(`posted question ${terminalLine(id)}`);
        if (!opts.wait) return void process.stdout.write(o.json ? `${JSON.stringify({ id })}\n` : `${terminalLine(id)}\n`);
        const stopped = (): InterruptedError =>
          new InterruptedError((interruptSignal.reason as InterruptedError).signal, `question ${terminalLine(id)} is posted; \`${later}\` shows its answer when there is one`);
        if (interruptSignal.aborted) throw stopped();
        info(`waiting for the answer (a person writes it: minutes to hours); Ctrl-C stops waiting, and \`${later}\` looks later`);
        // The answer route allows one look a minute; without the limits (a local server) a look every few seconds.
        const every = o.limits === false ? NO_LIMITS_LOOK_MS : 1.1 * MINUTE;
        try {
          for (;;) {
            const t = await client.answer(id);
            if (t) return void process.stdout.write(o.json ? `${JSON.stringify(threadJson({ id, ...t }))}\n` : printThread({ id, ...t }));
            const next = client.clock.now() + every;
            countdown(status, next, 'the next look at the answer');
            await client.clock.sleep(next - client.clock.now(), interruptSignal);
          }
        } catch (err) {
          if (interruptSignal.aborted) throw stopped();
          throw err;
        }
      }),
    );

  common(q.command('answer').argument('<id>'))
    .description('the answer to a question, if it has one yet')
    .action(
      run(async (client, o, _status, cmd) => {
        const id = cmd.args[0]!;
        const t = await client.answer(id);
        // Found nothing: exit 1, as `registry get` does for a prime it does not hold.
        if (!t) process.exitCode = 1;
        if (o.json) process.stdout.write(`${JSON.stringify(t ? threadJson({ id, ...t }) : null)}\n`);
        else process.stdout.write(t ? printThread({ id, ...t }) : `${terminalLine(id)}: not answered yet (or no such question)\n`);
      }),
    );

  common(q.command('answers').argument('<id...>'))
    .description('answers to many questions (asked 128 at a time)')
    .action(
      run(async (client, o, _status, cmd) => {
        const items = await client.answers(cmd.args);
        printItems(items, o.json);
        // As `answer` does for one id: exit 1 when any asked id has no answer to show.
        const answered = new Set(items.flatMap((i) => ('error' in i ? [] : [i.id])));
        const asked = new Set(cmd.args);
        const missing = [...asked].filter((id) => !answered.has(id)).length;
        if (missing) {
          process.exitCode = 1;
          // The reason for the exit code: the one error line, which --quiet keeps.
          process.stderr.write(`powprime: ${missing} of ${asked.size} questions not answered yet (or no such question)\n`);
        }
      }),
    );

  common(q.command('page').argument('<n>').option('--per-page <k>', 'threads per page, 1 ≤ |k| ≤ 128'))
    .description('a page of answered threads')
    .action(
      run(async (client, o, _status, cmd) => {
        const nText = cmd.args[0]!;
        if (!/^-?\d+$/.test(nText)) throw new RangeError(`n must be an integer (got ${JSON.stringify(nText)})`);
        const per = cmd.opts<{ perPage?: string }>().perPage;
        // Converted only: the client judges the size, and its error names --per-page (args.ts).
        const perPage = per === undefined ? undefined : parseIntArg('--per-page', per);
        const n = parseIntArg('n', nText);
        const items = await client.page(n, perPage === undefined ? {} : { perPage });
        printItems(items, o.json);
        // Numbering is the service's (the stand-ins count from 1): a page outside it is empty, not refused here.
        if (items.length === 0) exitFailed(`nothing on page ${n} (\`powprime question stats\` gives the number of pages)`);
      }),
    );

  common(q.command('stats'))
    .description('question, file and page counts')
    .action(
      run(async (client, o, _status) => {
        const s = await client.stats();
        process.stdout.write(o.json ? `${JSON.stringify(s)}\n` : `${s.count} questions, ${s.files} files, ${s.pages} pages\n`);
      }),
    );

  common(q.command('files'))
    .description('files attached to answers')
    .action(
      run(async (client, o, _status) => {
        const fs = await client.files();
        if (o.json) process.stdout.write(`${JSON.stringify(fs)}\n`);
        else for (const f of fs) process.stdout.write(`${terminalLine(f.question)}  ${terminalLine(f.filename)}  ${terminalLine(f.mimetype)}  ${f.size} bytes\n`);
        if (fs.length === 0) exitFailed('no files attached to answers yet');
      }),
    );

  common(q.command('models'))
    .description('websites of the models credited by the service')
    .action(
      run(async (client, o, _status) => {
        const m = await client.models();
        process.stdout.write(o.json ? `${JSON.stringify(m)}\n` : m.map((site) => `${terminalLine(site)}\n`).join(''));
        if (m.length === 0) exitFailed('the service names no models');
      }),
    );

  common(q.command('file').argument('<id>').argument('<name>').option('--out <path>', 'where to write it (default: ./<name>)'))
    .description('download a file of an answer (cached on disk)')
    .action(
      run(async (client, o, _status, cmd) => {
        const [id, name] = cmd.args as [string, string];
        // Judged before the download: a device, a FIFO or a missing folder is refused, a link is written through.
        const out = replaceablePath(cmd.opts<{ out?: string }>().out ?? sanitizeFilename(name));
        const f = await client.file(id, name);
        // Whole or not at all, every byte checked: a full disk is one line, not a cut file.
        writeFileAtomic(out, f.content, 0o644);
        if (o.json) process.stdout.write(`${JSON.stringify({ id, filename: name, path: out, bytes: f.content.length, fromCache: f.fromCache, attribution: f.attribution })}\n`);
        else process.stdout.write(`${terminalLine(out)}: ${f.content.length} bytes${f.fromCache ? ' (from cache)' : ''}\n— ${terminalLine(attributionText(f.attribution))}\n`);
      }),
    );

  common(
    q
      .command('run')
      .requiredOption('--prompts <file>', 'one prompt per line')
      .option('--out <file.jsonl>', 'append answers as JSON lines here (default: stdout)')
      .option('--files-dir <dir>', 'save attached files here', 'question-files')
      .option('--first-check <seconds>', 'first look for an answer this long after posting (later looks back off)', '300')
      .option('--max-interval <seconds>', 'longest gap between two looks at an unanswered question (below 66 only for a server without limits)', '3960'),
    { timeout: false },
  )
    .description('post every prompt and collect the answers, within the limits; rerun to resume')
    .action(
      run(async (client, _o, status, cmd) => {
        const opts = cmd.opts<{ prompts: string; out?: string; filesDir: string; firstCheck: string; maxInterval: string; timeout?: string }>();
        // The pipeline would count a deadline as a failure of each prompt in flight, and drop prompts for it.
        if (opts.timeout !== undefined)
          throw new RangeError('--timeout does not go with question run: it runs until every answer is in; stop it with a signal (its state is kept) or bound the looks with --max-interval');
        const firstCheck = checkInteger('--first-check', parseIntArg('--first-check', opts.firstCheck), 0, MAX_CHECK_INTERVAL_SECONDS);
        const maxInterval = checkInteger('--max-interval', parseIntArg('--max-interval', opts.maxInterval), 1, MAX_CHECK_INTERVAL_SECONDS);
        const prompts = readFileSync(opts.prompts, 'utf8')
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        // The sink is made once the pipeline holds the state dir, so a refused second run leaves --out alone; answers are delivered only in run().
        let sink!: AnswerSink;
        const pipeline = openPipeline(client, { firstCheckAfterMs: firstCheck * 1000, maxCheckIntervalMs: maxInterval * 1000, deliver: (answer) => sink.deliver(answer) });
        try {
          sink = new AnswerSink(client, opts.filesDir, opts.out);
          // Keys were once the prompt file's path and line; state saved so is renamed to the prompts' hashes.
          const file = path.resolve(opts.prompts);
          for (const [i, p] of prompts.entries()) pipeline.adoptKey(`${file}#${i}`, p);
          const keys = new Set(prompts.map((p) => pipeline.enqueue(p)));
          // A line edited or deleted before its prompt went out: the old text is not posted.
          const withdrawn = pipeline.withdraw(keys);
          if (withdrawn.length) process.stderr.write(`powprime: ${withdrawn.length} queued prompt${withdrawn.length === 1 ? '' : 's'} no longer in ${opts.prompts} withdrawn before posting\n`);
          // A new --out gets every answer already known, so it holds the whole run's answers.
          const backfilled = opts.out ? sink.backfill(pipeline.answered) : { written: 0, unavailable: 0 };
          pipeline.on('waiting', ({ until, action }) => {
            if (action !== 'deliver') countdown(status, until, action === 'post' ? 'query' : 'the next answer check');
          });
          pipeline.on('posted', ({ id }) => status.update(`posted ${terminalLine(id)}`, { posted: id, ...pipeline.status() }));
          pipeline.on('failed', (e) => process.stderr.write(`powprime: ${terminalLine(e.message)} (will retry)\n`));
          pipeline.on('dropped', (d) => process.stderr.write(`powprime: dropped ${terminalLine(JSON.stringify(d.prompt))}: ${terminalLine(d.reason)}\n`));
          try {
            await pipeline.run({ signal: interruptSignal });
          } finally {
            sink.close();
          }
          // The countdown stops and its line goes before the summary is written.
          status.clear();
          const s = pipeline.status();
          const where = opts.out
            ? ` (${sink.count} in ${opts.out}${backfilled.written ? `, ${backfilled.written} of them from earlier runs` : ''}${backfilled.unavailable ? `; ${backfilled.unavailable} answered before answers were kept are only in earlier outputs` : ''})`
            : ` (${sink.count} of them on stdout from this run)`;
          process.stderr.write(`${s.answered} answered${where}, ${s.awaiting} awaiting, ${s.queued} queued, ${s.dropped} dropped${interruptSignal.aborted ? ' (stopped; rerun to resume)' : ''}\n`);
          if (interruptSignal.aborted) throw new InterruptedError((interruptSignal.reason as InterruptedError).signal, 'rerun the same command to resume');
        } finally {
          pipeline.close();
        }
      }),
    );
}
