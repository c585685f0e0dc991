import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';
import { HUMAN_NOTICE } from '../src/clients/question/attribution.ts';
import { startFakeServices, type FakeServices } from '../src/fake-services/index.ts';
import { tempDir } from './helpers/tmp.ts';

let fake: FakeServices;
beforeAll(async () => {
  fake = await startFakeServices({ question: { unlimited: true, difficulty: 2, answerDelayMs: 0 } });
});
afterAll(() => fake.close());

const tmp = (): string => tempDir('powprime-cliq-');

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
    const none = await cli('question', 'answer', 'nope', '--json', ...common);
    expect(none.status).toBe(1);
    expect(none.stdout.trim()).toBe('null');
    const many = JSON.parse((await cli('question', 'answers', id, 'nope', '--json', ...common)).stdout);
    expect(many[1]).toEqual({ error: 'question not answered or not existing', id: 'nope' });
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
    const r = await cli('question', 'run', '--prompts', prompts, '--out', out, '--files-dir', path.join(dir, 'files'), '--base-url', fake.url.href, '--state-dir', path.join(dir, 'state'), '--no-limits', '--first-check', '0', '--max-interval', '1');
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.question).sort()).toEqual(['first prompt', 'second prompt with a file', 'third prompt']);
    for (const l of lines) expect(l.attribution.notice).toBe(HUMAN_NOTICE);
    expect(r.stderr).toMatch(/^3 answered \(3 in .*answers\.jsonl\), 0 awaiting, 0 queued, 0 dropped$/m);
  });

  it.each([
    [['question', 'stats'], /--base-url is required/, 2],
    [['question', 'page', '1', '--per-page', '0', '--base-url', 'http://127.0.0.1:9'], /perPage must be an integer/, 2],
    [['question', 'stats', '--base-url', 'https://questions.example', '--no-limits'], /loopback/, 2],
    [['question', 'stats', '--base-url', 'http://127.0.0.1:9', '--no-limits'], /GET \/gpt\/api\/stats/, 1],
  ])('bad input or a dead service %j → one line', async (args, message, code) => {
    const r = await cli(...args, '--state-dir', tmp());
    expect(r.status).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
