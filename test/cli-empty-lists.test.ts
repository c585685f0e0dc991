// A list command whose list comes back empty found nothing: one line saying
// what was empty, exit 1 (the convention's "found nothing"), and under --json
// still valid JSON on stdout. Against the local services, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';
import { startFakeServices, type FakeServices } from '../src/fake-services/index.ts';
import { tempDir } from './helpers/tmp.ts';

let fake: FakeServices;
beforeAll(async () => {
  fake = await startFakeServices({ unlimited: true, question: { difficulty: 2, answerDelayMs: 0, models: [] } });
});
afterAll(() => fake.close());

/** Runs a service command against the local services with a fresh state dir (so nothing comes from a cache). */
const cli = (...args: string[]) => runCli(...args, '--base-url', fake.url.href, '--state-dir', tempDir('powprime-empty-'), '--no-limits');

describe('empty lists say so and exit 1', () => {
  it('question page: a page with nothing on it (page 0: the services count pages from 1), in text and in --json', async () => {
    const asked = await cli('question', 'ask', 'one question');
    expect(asked.status, asked.stderr).toBe(0);
    const line = 'powprime: nothing on page 0 (`powprime question stats` gives the number of pages)\n';
    const text = await cli('question', 'page', '0');
    expect(text).toEqual({ status: 1, stdout: '', stderr: line });
    const json = await cli('question', 'page', '0', '--json');
    expect(json).toEqual({ status: 1, stdout: '[]\n', stderr: line });
    // Past the last page too; the first page holds the one answered question, exit 0.
    const past = await cli('question', 'page', '2', '--json');
    expect(past.status).toBe(1);
    expect(past.stderr).toContain('nothing on page 2');
    const first = await cli('question', 'page', '1', '--json');
    expect(first.status, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as { question: string }[]).map((t) => t.question)).toEqual(['one question']);
  });

  it('question files and models: none is found nothing', async () => {
    const files = await cli('question', 'files', '--json');
    expect(files).toEqual({ status: 1, stdout: '[]\n', stderr: 'powprime: no files attached to answers yet\n' });
    const models = await cli('question', 'models');
    expect(models).toEqual({ status: 1, stdout: '', stderr: 'powprime: the service names no models\n' });
  });

  it('ads leaderboard: empty until an image is fetched, then its count', async () => {
    const line = 'powprime: the leaderboard is empty: no site has shown an ad yet\n';
    expect(await cli('ads', 'leaderboard')).toEqual({ status: 1, stdout: '', stderr: line });
    expect(await cli('ads', 'leaderboard', '--json')).toEqual({ status: 1, stdout: '{}\n', stderr: line });
    const image = await cli('ads', 'image', 'eve.png', '--out', `${tempDir()}/eve.png`);
    expect(image.status, image.stderr).toBe(0);
    expect(await cli('ads', 'leaderboard', '--json')).toEqual({ status: 0, stdout: '{"direct":1}\n', stderr: '' });
  });

  it('ads all: a service without ads', async () => {
    const kept = fake.ads.ads.splice(0);
    try {
      expect(await cli('ads', 'all')).toEqual({ status: 1, stdout: '', stderr: 'powprime: the service has no ads\n' });
      expect(await cli('ads', 'all', '--json')).toEqual({ status: 1, stdout: '[]\n', stderr: 'powprime: the service has no ads\n' });
    } finally {
      fake.ads.ads.push(...kept);
    }
  });
});
