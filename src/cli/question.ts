/** `powprime question`: the question service's command tree and its short subcommands; `run` lives in question-run.ts. */
import type { Command } from 'commander';
import { attributionText } from '../clients/question/attribution.ts';
import { sanitizeFilename } from '../clients/http/file-names.ts';
import { MINUTE } from '../clients/clock.ts';
import type { QuestionClient } from '../clients/question/client.ts';
import { threadJson } from '../clients/question/threads.ts';
import { InterruptedError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { parseIntArg } from './args.ts';
import { exitFailed } from './exit-failed.ts';
import { interruptSignal } from './interrupt.ts';
import { replaceablePath } from './out-path.ts';
import { info } from './progress-mode.ts';
import { questionAction, questionFlags, type QuestionFlags } from './question-flags.ts';
import { printItems, printThread } from './question-print.ts';
import { registerQuestionRun } from './question-run.ts';
import { countdown } from './service-command.ts';
import type { StatusLine } from './status.ts';
import { terminalLine } from './terminal-text.ts';

/** `ask --wait --no-limits`: the gap between two looks at the answer. */
const NO_LIMITS_LOOK_MS = 2000;

export function registerQuestion(program: Command): void {
  const q = program.command('question').description('the question service: ask, read answers and files (answers are written by people)');
  // In this order: it is the order of `powprime question --help` and of the generated docs.
  registerAsk(q);
  registerAnswers(q);
  registerPage(q);
  registerCatalogue(q);
  registerFile(q);
  registerQuestionRun(q);
}

function registerAsk(q: Command): void {
  questionFlags(q.command('ask').argument('<prompt>').option('--wait', 'wait for the answer and print it'))
    .description('post a question (solves the proof of work); prints its id')
    .action(
      questionAction(async (client, o, status, cmd) => {
        const opts = cmd.opts<{ wait?: boolean }>();
        const prompt = cmd.args[0]!;
        // A signal during the proof of work posts nothing; one during the POST still gets the id.
        const id = await client.query(prompt, { signal: interruptSignal });
        // At once, whatever follows: a question spends one of the day's few posts, and its id is the only way back to it.
        info(`posted question ${terminalLine(id)}`);
        if (!opts.wait) return void process.stdout.write(o.json ? `${JSON.stringify({ id })}\n` : `${terminalLine(id)}\n`);
        await waitForAnswer(client, id, o, status);
      }),
    );
}

/** `ask --wait`: looks at the answer until there is one; a stop signal ends the wait, naming the command that looks later. */
async function waitForAnswer(client: QuestionClient, id: string, o: QuestionFlags, status: StatusLine): Promise<void> {
  const later = `powprime question answer ${terminalLine(id)}`;
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
}

/** `answer` and `answers`: one question's answer, or many; exit 1 when one asked for has none to show. */
function registerAnswers(q: Command): void {
  questionFlags(q.command('answer').argument('<id>'))
    .description('the answer to a question, if it has one yet')
    .action(
      questionAction(async (client, o, _status, cmd) => {
        const id = cmd.args[0]!;
        const t = await client.answer(id);
        // Found nothing: exit 1, as `registry get` does for a prime it does not hold.
        if (!t) process.exitCode = 1;
        if (o.json) process.stdout.write(`${JSON.stringify(t ? threadJson({ id, ...t }) : null)}\n`);
        else process.stdout.write(t ? printThread({ id, ...t }) : `${terminalLine(id)}: not answered yet (or no such question)\n`);
      }),
    );

  questionFlags(q.command('answers').argument('<id...>'))
    .description('answers to many questions (asked 128 at a time)')
    .action(
      questionAction(async (client, o, _status, cmd) => {
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
}

function registerPage(q: Command): void {
  questionFlags(q.command('page').argument('<n>').option('--per-page <k>', 'threads per page, 1 ≤ |k| ≤ 128'))
    .description('a page of answered threads')
    .action(
      questionAction(async (client, o, _status, cmd) => {
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
}

/** `stats`, `files` and `models`: what the service holds, each list exiting 1 when empty. */
function registerCatalogue(q: Command): void {
  questionFlags(q.command('stats'))
    .description('question, file and page counts')
    .action(
      questionAction(async (client, o) => {
        const s = await client.stats();
        process.stdout.write(o.json ? `${JSON.stringify(s)}\n` : `${s.count} questions, ${s.files} files, ${s.pages} pages\n`);
      }),
    );
  questionFlags(q.command('files'))
    .description('files attached to answers')
    .action(
      questionAction(async (client, o) => {
        const fs = await client.files();
        if (o.json) process.stdout.write(`${JSON.stringify(fs)}\n`);
        else for (const f of fs) process.stdout.write(`${terminalLine(f.question)}  ${terminalLine(f.filename)}  ${terminalLine(f.mimetype)}  ${f.size} bytes\n`);
        if (fs.length === 0) exitFailed('no files attached to answers yet');
      }),
    );
  questionFlags(q.command('models'))
    .description('websites of the models credited by the service')
    .action(
      questionAction(async (client, o) => {
        const m = await client.models();
        process.stdout.write(o.json ? `${JSON.stringify(m)}\n` : m.map((site) => `${terminalLine(site)}\n`).join(''));
        if (m.length === 0) exitFailed('the service names no models');
      }),
    );
}

function registerFile(q: Command): void {
  questionFlags(q.command('file').argument('<id>').argument('<name>').option('--out <path>', 'where to write it (default: ./<name>)'))
    .description('download a file of an answer (cached on disk)')
    .action(
      questionAction(async (client, o, _status, cmd) => {
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
}
