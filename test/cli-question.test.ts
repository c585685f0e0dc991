import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';
import { killAll, startCli } from './helpers/processes.ts';
import { HUMAN_NOTICE } from '../src/clients/question/attribution.ts';
import { startFakeServices, type FakeServices } from '../src/fake-services/index.ts';
import { hostStateFile, hostTag } from '../src/clients/http/state-paths.ts';
import { jsonConventionErrors, jsonValues } from './helpers/json-convention.ts';
import { tempDir } from './helpers/tmp.ts';

let fake: FakeServices;
beforeAll(async () => {
  fake = await startFakeServices({ question: { unlimited: true, difficulty: 2, answerDelayMs: 0 } });
});
afterAll(() => fake.close());

const tmp = (): string => tempDir('powprime-cliq-');
/** A state file of `question run` against `url`: kept per host (pipeline-<host>.json). */
const hostFile = (state: string, name: string, url = fake.url): string => hostStateFile(state, name, hostTag(url));

const cli = runCli;

describe('powprime question', () => {
  it('ask, answer, answers, page, stats, models, file — each answer with the attribution', async () => {
    const common = ['--base-url', fake.url.href, '--state-dir', tmp(), '--homepage-url', 'https://questions.example/'];
    const asked = await cli('question', 'ask', 'a question with a file', '--json', ...common);
    expect(asked.status, asked.stderr).toBe(0);
    const { id } = JSON.parse(asked.stdout) as { id: string };
    const answer = await cli('question', 'answer', id, '--json', ...common);
    const t = JSON.parse(answer.stdout);
    expect(t).toMatchObject({ id, question: 'a question with a file', attribution: { notice: HUMAN_NOTICE, homepage: 'https://questions.example/' } });
    const human = await cli('question', 'answer', id, ...common);
    expect(human.stdout).toContain(HUMAN_NOTICE);
    expect(human.stdout).toContain('https://questions.example/');
    expect(answer.status).toBe(0);
    // Found nothing: exit 1, like `registry get` of a prime the registry does not hold.
    // The answer route allows one call a minute and the first `answer` took it (the
    // second was answered from the cache): --no-limits from here on, or this test
    // would wait a minute for nothing (rate-limiter-shared.test.ts tests the waiting).
    const none = await cli('question', 'answer', 'nope', '--json', '--no-limits', ...common);
    expect(none.status).toBe(1);
    expect(none.stdout.trim()).toBe('null');
    const manyRun = await cli('question', 'answers', id, 'nope', '--json', '--no-limits', ...common);
    const many = JSON.parse(manyRun.stdout);
    expect(many[1]).toEqual({ error: 'question not answered or not existing', id: 'nope' });
    // One of the ids has no answer: exit 1, as `answer` gives for it alone, and stderr says how many.
    expect(manyRun.status).toBe(1);
    expect(manyRun.stderr).toContain('powprime: 1 of 2 questions not answered yet');
    const allAnswered = await cli('question', 'answers', id, '--json', '--no-limits', ...common);
    expect(allAnswered.status, allAnswered.stderr).toBe(0);
    // The line explains the exit code, so --quiet keeps it.
    const quietRun = await cli('--quiet', 'question', 'answers', 'nope', '--no-limits', ...common);
    expect(quietRun.status).toBe(1);
    expect(quietRun.stderr.trim()).toBe('powprime: 1 of 1 questions not answered yet (or no such question)');
    const page = JSON.parse((await cli('question', 'page', '1', '--per-page', '5', '--json', ...common)).stdout);
    expect(page[0].attribution.notice).toBe(HUMAN_NOTICE);
    expect(JSON.parse((await cli('question', 'stats', '--json', ...common)).stdout)).toMatchObject({ count: 1, files: 1 });
    expect(JSON.parse((await cli('question', 'models', '--json', ...common)).stdout)).toEqual(fake.question.o.models);
    const out = path.join(tmp(), 'got.txt');
    const file = await cli('question', 'file', id, 'notes.txt', '--out', out, ...common);
    expect(file.status, file.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('notes for: a question with a file');
    expect(file.stdout).toContain(HUMAN_NOTICE);
  });

  it('run posts every prompt and appends the answers as JSON lines', async () => {
    const dir = tmp();
    const prompts = path.join(dir, 'prompts.txt');
    writeFileSync(prompts, 'first prompt\nsecond prompt with a file\n\nthird prompt\n');
    const out = path.join(dir, 'answers.jsonl');
    const r = await cli(
      'question',
      'run',
      '--prompts',
      prompts,
      '--out',
      out,
      '--files-dir',
      path.join(dir, 'files'),
      '--base-url',
      fake.url.href,
      '--state-dir',
      path.join(dir, 'state'),
      '--no-limits',
      '--first-check',
      '0',
      '--max-interval',
      '1',
    );
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.question).sort()).toEqual(['first prompt', 'second prompt with a file', 'third prompt']);
    for (const l of lines) expect(l.attribution.notice).toBe(HUMAN_NOTICE);
    expect(r.stderr).toMatch(/^3 answered \(3 in .*answers\.jsonl\), 0 awaiting, 0 queued, 0 dropped$/m);
  });

  it.each([
    [['question', 'stats'], /--base-url is required/, 2],
    [['question', 'page', '1', '--per-page', '0', '--base-url', 'http://127.0.0.1:9'], /^powprime: --per-page must be a nonzero integer from -128 to 128 \(got 0\)$/m, 2],
    [['question', 'stats', '--base-url', 'https://questions.example', '--no-limits'], /loopback/, 2],
    [['question', 'stats', '--base-url', 'http://127.0.0.1:9', '--no-limits'], /GET \/gpt\/api\/stats/, 1],
  ])('bad input or a dead service %j → one line', async (args, message, code) => {
    const r = await cli(...args, '--state-dir', tmp());
    expect(r.status).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('ask prints the id on stderr at once, and on stdout for scripts', async () => {
    const r = await cli('question', 'ask', 'just post it', '--base-url', fake.url.href, '--state-dir', tmp(), '--no-limits');
    expect(r.status, r.stderr).toBe(0);
    const id = r.stdout.trim();
    expect(id).not.toBe('');
    expect(r.stderr).toBe(`posted question ${id}\n`);
  });
});

describe("every question command's JSON follows the JSON convention of docs/cli.md", () => {
  it('the checker itself flags the shapes the convention forbids', () => {
    expect(jsonConventionErrors({ id: 'x', time: 1795451175 })).toHaveLength(1);
    expect(jsonConventionErrors({ timestamp: 1700000000.5 })).toHaveLength(1);
    expect(jsonConventionErrors({ elapsedMs: 12.25 })).toHaveLength(1);
    expect(jsonConventionErrors({ old_mbits: 1 })).toHaveLength(1);
    expect(jsonConventionErrors({ seenAt: 1795451175000 })).toHaveLength(1);
    expect(jsonConventionErrors({ at: 'yesterday' })).toHaveLength(1);
    expect(jsonConventionErrors({ time: '2026-11-23T18:00:00.000Z', elapsedMs: 12, count: 3 })).toEqual([]);
  });

  it('ask --wait, answer, answers, page, stats, files, models, file, and the lines of run', async () => {
    const dir = tmp();
    const common = ['--base-url', fake.url.href, '--state-dir', path.join(dir, 'state'), '--no-limits'];
    const outputs: [string, string][] = [];
    const json = async (...args: string[]): Promise<unknown[]> => {
      const r = await cli(...args, '--json', ...common);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      outputs.push([args.join(' '), r.stdout]);
      return jsonValues(r.stdout);
    };
    const [waited] = (await json('question', 'ask', 'a question with a file', '--wait')) as { id: string; time: string }[];
    // The fake service's UNIX seconds, as the instant they name (an independent clock reading brackets it).
    expect(Date.parse(waited!.time)).toBeGreaterThan(Date.now() - 600_000);
    expect(Date.parse(waited!.time)).toBeLessThanOrEqual(Date.now());
    const id = waited!.id;
    await json('question', 'answer', id);
    await json('question', 'answers', id);
    await json('question', 'page', '1');
    await json('question', 'stats');
    await json('question', 'files');
    await json('question', 'models');
    await json('question', 'file', id, 'notes.txt', '--out', path.join(dir, 'notes.txt'));
    const prompts = path.join(dir, 'prompts.txt');
    writeFileSync(prompts, 'run prompt one\nrun prompt two\n');
    const out = path.join(dir, 'answers.jsonl');
    const run = await cli('question', 'run', '--prompts', prompts, '--out', out, '--files-dir', path.join(dir, 'files'), '--first-check', '0', '--max-interval', '1', ...common);
    expect(run.status, run.stderr).toBe(0);
    outputs.push(['question run --out', readFileSync(out, 'utf8')]);
    for (const [what, stdout] of outputs) for (const v of jsonValues(stdout)) expect(jsonConventionErrors(v), what).toEqual([]);
  });
});

describe("question run keys prompts by their text, and each --out holds its prompts' answers", () => {
  const posts = (): number => fake.requests.filter((q) => q === 'POST /gpt/api/query').length;
  const runArgs = (dir: string, prompts: string, out: string): string[] => [
    'question',
    'run',
    '--prompts',
    prompts,
    '--out',
    out,
    '--files-dir',
    path.join(dir, 'files'),
    '--base-url',
    fake.url.href,
    '--state-dir',
    path.join(dir, 'state'),
    '--no-limits',
    '--first-check',
    '0',
    '--max-interval',
    '1',
  ];
  const questions = (file: string): string[] =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { question: string }).question)
      .sort();

  it("an edited line posts its new text; a new --out gets the answers known to the file's prompts; nothing is posted twice", async () => {
    const dir = tmp();
    const prompts = path.join(dir, 'prompts.txt');
    writeFileSync(prompts, 'alpha\nbeta\n');
    const out = path.join(dir, 'a.jsonl');
    const first = await cli(...runArgs(dir, prompts, out));
    expect(first.status, first.stderr).toBe(0);
    expect(questions(out)).toEqual(['alpha', 'beta']);

    // The same line number, new text: a new prompt.
    writeFileSync(prompts, 'alpha\nbeta, edited\n');
    const before = posts();
    const edited = await cli(...runArgs(dir, prompts, out));
    expect(edited.status, edited.stderr).toBe(0);
    expect(posts()).toBe(before + 1);
    expect(questions(out)).toEqual(['alpha', 'beta', 'beta, edited']);
    expect(edited.stderr).toMatch(/^3 answered \(3 in .*a\.jsonl\), 0 awaiting, 0 queued, 0 dropped$/m);

    // A new --out: given the answers already known to the file's prompts, without a request to post anything;
    // not the answer to the line's old text, which the file no longer has.
    const fresh = path.join(dir, 'b.jsonl');
    const again = await cli(...runArgs(dir, prompts, fresh));
    expect(again.status, again.stderr).toBe(0);
    expect(posts()).toBe(before + 1);
    expect(questions(fresh)).toEqual(['alpha', 'beta, edited']);
    expect(again.stderr).toMatch(/^3 answered \(2 in .*b\.jsonl, 2 of them from earlier runs\), 0 awaiting, 0 queued, 0 dropped$/m);

    // Another prompts file through the same state dir: its --out holds its own answers, none of the first file's.
    const other = path.join(dir, 'other.txt');
    writeFileSync(other, 'gamma\n');
    const otherOut = path.join(dir, 'c.jsonl');
    const third = await cli(...runArgs(dir, other, otherOut));
    expect(third.status, third.stderr).toBe(0);
    expect(posts()).toBe(before + 2);
    expect(questions(otherOut)).toEqual(['gamma']);
  });

  it('a prompt edited before it went out: the old text is withdrawn, only the new one is posted', async () => {
    const dir = tmp();
    const prompts = path.join(dir, 'prompts.txt');
    writeFileSync(prompts, 'the fixed text\n');
    const state = path.join(dir, 'state');
    mkdirSync(state, { recursive: true });
    // Queued by an earlier run that was stopped before posting it.
    const queued = { key: createHash('sha256').update('the typo txet').digest('hex').slice(0, 16), prompt: 'the typo txet', failures: 0, notBefore: 0 };
    writeFileSync(hostFile(state, 'pipeline.json'), JSON.stringify({ prompts: [queued], awaiting: [], delivering: [], answered: [], dropped: [] }));
    const before = posts();
    const out = path.join(dir, 'a.jsonl');
    const r = await cli(...runArgs(dir, prompts, out));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^powprime: 1 queued prompt no longer in .*prompts\.txt withdrawn before posting$/m);
    expect(posts()).toBe(before + 1);
    expect(questions(out)).toEqual(['the fixed text']);
  });

  it('without --out: the answers go to stdout, and the summary says how many this run wrote there', async () => {
    const dir = tmp();
    const prompts = path.join(dir, 'prompts.txt');
    writeFileSync(prompts, 'to stdout\n');
    const args = [
      'question',
      'run',
      '--prompts',
      prompts,
      '--files-dir',
      path.join(dir, 'files'),
      '--base-url',
      fake.url.href,
      '--state-dir',
      path.join(dir, 'state'),
      '--no-limits',
      '--first-check',
      '0',
      '--max-interval',
      '1',
    ];
    const r = await cli(...args);
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { question: string }).question).toBe('to stdout');
    expect(r.stderr).toMatch(/^1 answered \(1 of them on stdout from this run\), 0 awaiting, 0 queued, 0 dropped$/m);
    const again = await cli(...args);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^1 answered \(0 of them on stdout from this run\)/m);
  });

  it('state saved when prompts were keyed by file and line is taken over, not posted again; a pipeline.json of the wrong shape is set aside', async () => {
    const dir = tmp();
    const prompts = path.join(dir, 'prompts.txt');
    writeFileSync(prompts, 'kept from before\nnew one\n');
    const state = path.join(dir, 'state');
    mkdirSync(state, { recursive: true });
    const legacy = { prompts: [], awaiting: [], delivering: [], dropped: [], answered: [{ key: `${path.resolve(prompts)}#0`, id: 'old-id', at: 1 }] };
    writeFileSync(hostFile(state, 'pipeline.json'), JSON.stringify(legacy));
    const before = posts();
    const out = path.join(dir, 'a.jsonl');
    const r = await cli(...runArgs(dir, prompts, out));
    expect(r.status, r.stderr).toBe(0);
    expect(posts()).toBe(before + 1);
    expect(questions(out)).toEqual(['new one']);
    expect(r.stderr).toMatch(/^2 answered \(1 in .*a\.jsonl; 1 answered before answers were kept are only in earlier outputs\)/m);

    writeFileSync(hostFile(state, 'pipeline.json'), '{"prompts":"x"}');
    const shaped = await cli(...runArgs(dir, prompts, out));
    expect(shaped.status, shaped.stderr).toBe(0);
    expect(shaped.stderr).toMatch(/^powprime: warning: .*pipeline-127\.0\.0\.1_\d+\.json has a prompts that is not a list; moved to .*\.corrupt-\d+, starting afresh$/m);
    expect(readdirSync(state).some((f) => f.startsWith(`${path.basename(hostFile(state, 'pipeline.json'))}.corrupt-`))).toBe(true);
  });

  it('a second run on the same --state-dir is refused at once, posting nothing; the lock goes with the first run', async () => {
    const slow = await startFakeServices({ question: { unlimited: true, difficulty: 1, answerDelayMs: 3_600_000 } });
    try {
      const dir = tmp();
      const prompts = path.join(dir, 'prompts.txt');
      writeFileSync(prompts, 'p1\np2\n');
      const state = path.join(dir, 'state');
      const args = (out: string): string[] => [
        'question',
        'run',
        '--prompts',
        prompts,
        '--out',
        path.join(dir, out),
        '--state-dir',
        state,
        '--base-url',
        slow.url.href,
        '--no-limits',
        '--first-check',
        '600',
      ];
      const first = startCli(args('a.jsonl'));
      await first.waitFor(() => existsSync(hostFile(state, 'pipeline.lock', slow.url)) && slow.requests.filter((q) => q === 'POST /gpt/api/query').length === 2, 'both prompts posted');
      const second = await cli(...args('b.jsonl'));
      expect(second.status).toBe(2);
      expect(second.stderr).toMatch(
        new RegExp(`^powprime: --state-dir .* is in use by another question run against ${slow.url.host} \\(pid ${first.child.pid}\\); wait for it to end or stop it, or use another --state-dir\n$`),
      );
      expect(slow.requests.filter((q) => q === 'POST /gpt/api/query')).toHaveLength(2);
      first.child.kill('SIGINT');
      expect((await first.exited).status).toBe(130);
      expect(existsSync(hostFile(state, 'pipeline.lock', slow.url))).toBe(false);
      // A lock left by a run killed with -9 is taken over.
      const killed = startCli(args('a.jsonl'));
      await killed.waitFor(() => existsSync(hostFile(state, 'pipeline.lock', slow.url)), 'the lock');
      await killed.kill9();
      const next = startCli(args('a.jsonl'));
      await next.waitFor(() => (JSON.parse(readFileSync(hostFile(state, 'pipeline.lock', slow.url), 'utf8')) as { pid: number }).pid === next.child.pid, 'the lock taken over');
      next.child.kill('SIGTERM');
      expect((await next.exited).status).toBe(143);
    } finally {
      await killAll();
      await slow.close();
    }
  });
});
