import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError } from '../src/clients/network-error.ts';
import { DAY, HOUR, ManualClock, MINUTE } from '../src/clients/clock.ts';
import { HUMAN_NOTICE } from '../src/clients/question/attribution.ts';
import { QuestionClient } from '../src/clients/question/client.ts';
import { pipelineFile, QuestionPipeline } from '../src/clients/question/pipeline.ts';
import { FileLockedError } from '../src/errors.ts';
import { promptKey } from '../src/index.ts';
import { startFakeServices } from '../src/fake-services/index.ts';
import { tempDir } from './helpers/tmp.ts';

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});
const tmp = (): string => tempDir('powprime-pipe-');

describe('QuestionPipeline against the local server', () => {
  it('a simulated day with 40 prompts: 16 posted (the daily limit), zero 429s; all answered by day three', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock, question: { difficulty: 2 } });
    running.push(fake);
    const dir = tmp();
    const client = new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock });
    const pipeline = new QuestionPipeline({ client, stateDir: dir });
    const answered: string[] = [];
    pipeline.on('answered', ({ prompt, thread }) => {
      expect(thread.attribution.notice).toBe(HUMAN_NOTICE);
      expect(thread.question).toBe(prompt);
      answered.push(prompt);
    });
    for (let i = 0; i < 40; i++) pipeline.enqueue(`question number ${i}`);
    const start = clock.now();
    await pipeline.run({ until: start + DAY });
    const day1 = pipeline.status();
    expect(day1.awaiting + day1.answered).toBeLessThanOrEqual(16);
    expect(day1.awaiting + day1.answered).toBeGreaterThanOrEqual(14);
    expect(day1.queued).toBe(40 - day1.awaiting - day1.answered);
    expect(fake.question.limits.refusals).toEqual([]);
    await pipeline.run();
    expect(pipeline.status()).toEqual({ queued: 0, awaiting: 0, delivering: 0, answered: 40, dropped: 0 });
    expect(new Set(answered).size).toBe(40);
    expect(fake.question.limits.refusals).toEqual([]);
    expect(clock.now() - start).toBeGreaterThan(2 * DAY);
  });

  it('plans its budget: 3 prompts answered after 10 minutes are each collected within 3 minutes, no check before one could exist, the hourly answers budget never spent first', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock, question: { difficulty: 2, answerDelayMs: 10 * MINUTE } });
    running.push(fake);
    const dir = tmp();
    const client = new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock });
    // Every check the pipeline makes, with the (simulated) time it was made.
    const checks: { route: 'answer' | 'answers'; at: number }[] = [];
    const answer = client.answer.bind(client);
    const answers = client.answers.bind(client);
    client.answer = (id) => {
      checks.push({ route: 'answer', at: clock.now() });
      return answer(id);
    };
    client.answers = (ids) => {
      checks.push({ route: 'answers', at: clock.now() });
      return answers(ids);
    };
    const pipeline = new QuestionPipeline({ client, stateDir: dir });
    const posted = new Map<string, number>();
    const collected = new Map<string, number>();
    pipeline.on('posted', ({ key }) => posted.set(key, clock.now()));
    pipeline.on('answered', ({ key }) => collected.set(key, clock.now()));
    for (let i = 0; i < 3; i++) pipeline.enqueue(`slow question ${i}`);
    await pipeline.run();
    expect(collected.size).toBe(3);
    for (const [key, at] of posted) {
      const appeared = at + 10 * MINUTE;
      expect(collected.get(key)! - appeared).toBeGreaterThanOrEqual(0);
      expect(collected.get(key)! - appeared).toBeLessThanOrEqual(3 * MINUTE);
    }
    const firstPosted = Math.min(...posted.values());
    const firstAnswer = firstPosted + 10 * MINUTE;
    expect(checks.length).toBeGreaterThan(0);
    expect(Math.min(...checks.map((c) => c.at))).toBeGreaterThanOrEqual(firstPosted + 5 * MINUTE);
    expect(checks.filter((c) => c.route === 'answers' && c.at < firstAnswer).length).toBeLessThan(8);
    expect(fake.question.limits.refusals).toEqual([]);
  });

  it('a restart in the middle loses nothing and posts nothing twice', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock, question: { difficulty: 2 } });
    running.push(fake);
    const dir = tmp();
    const first = new QuestionPipeline({ client: new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock }), stateDir: dir });
    for (let i = 0; i < 10; i++) first.enqueue(`restart question ${i}`);
    const stop = new AbortController();
    let posted = 0;
    first.on('posted', () => {
      if (++posted === 3) stop.abort();
    });
    await first.run({ signal: stop.signal });
    expect(first.status().queued).toBe(7);
    // A new process: new client and pipeline on the same state.
    const second = new QuestionPipeline({ client: new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock }), stateDir: dir });
    expect(second.status()).toMatchObject({ queued: 7, awaiting: 3 });
    for (let i = 0; i < 10; i++) second.enqueue(`restart question ${i}`); // already known: not queued twice
    expect(second.status().queued).toBe(7);
    await second.run();
    expect(second.status()).toEqual({ queued: 0, awaiting: 0, delivering: 0, answered: 10, dropped: 0 });
    // The package's promptKey is the key each answer is kept under: a caller matches answers to its prompts by it.
    for (const a of second.answered) expect(a.key).toBe(promptKey(a.prompt!));
    expect(new Set(second.answered.map((a) => a.key))).toEqual(new Set(Array.from({ length: 10 }, (_, i) => promptKey(`restart question ${i}`))));
    expect(() => promptKey(7 as unknown as string)).toThrow(TypeError);
    expect(() => promptKey(7 as unknown as string)).toThrow('prompt must be a string (got 7)');
    expect(fake.requests.filter((r) => r === 'POST /gpt/api/query')).toHaveLength(10);
    expect(fake.question.limits.refusals).toEqual([]);
  });

  it('a rerun with a shorter firstCheckAfterMs checks a question posted before, not checked yet, at postedAt plus the new value', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock, question: { difficulty: 2, answerDelayMs: 0 } });
    running.push(fake);
    const dir = tmp();
    const first = new QuestionPipeline({ client: new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock }), stateDir: dir, firstCheckAfterMs: HOUR });
    first.enqueue('asked with a long first check');
    let postedAt = 0;
    const stop = new AbortController();
    first.on('posted', () => {
      postedAt = clock.now();
      stop.abort();
    });
    await first.run({ signal: stop.signal });
    expect(first.status()).toMatchObject({ queued: 0, awaiting: 1 });
    const file = pipelineFile(new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock }), dir);
    const rerun = async (firstCheckAfterMs: number): Promise<number[]> => {
      const client = new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock });
      const checks: number[] = [];
      const answer = client.answer.bind(client);
      client.answer = (id) => {
        checks.push(clock.now());
        return answer(id);
      };
      const pipeline = new QuestionPipeline({ client, stateDir: dir, firstCheckAfterMs });
      await pipeline.run();
      expect(pipeline.status()).toMatchObject({ awaiting: 0, answered: 1 });
      return checks;
    };
    const saved = readFileSync(file, 'utf8');
    expect(JSON.parse(saved).awaiting[0]).toMatchObject({ postedAt, checks: 0, notBefore: postedAt + HOUR });
    expect(await rerun(25_000)).toEqual([postedAt + 25_000]);
    // State saved before checks were counted: an item at the default first check (5 minutes) was never checked.
    const legacy = JSON.parse(saved);
    delete legacy.awaiting[0].checks;
    legacy.awaiting[0].notBefore = postedAt + 5 * MINUTE;
    legacy.answered = [];
    writeFileSync(file, JSON.stringify(legacy));
    expect(await rerun(30 * MINUTE)).toEqual([postedAt + 30 * MINUTE]);
  });

  it('two pipelines on one state dir: the second is refused while the first holds it, and runs once the first has finished; nothing posted twice', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock, question: { difficulty: 2 } });
    running.push(fake);
    const dir = tmp();
    const open = (): QuestionPipeline => new QuestionPipeline({ client: new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock }), stateDir: dir });
    const refusal = (): unknown => {
      try {
        open().close();
        return null;
      } catch (err) {
        return err;
      }
    };
    const first = open();
    for (let i = 0; i < 3; i++) first.enqueue(`shared question ${i}`);
    const file = pipelineFile(new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock }), dir);
    const before = refusal();
    expect(before).toBeInstanceOf(FileLockedError);
    expect(before).toMatchObject({ code: 'ERR_FILE_LOCKED', file, holder: `pid ${process.pid}`, message: `${file} is in use by pid ${process.pid}; wait for it to end or stop it` });
    let during: unknown;
    first.once('posted', () => {
      during = refusal();
    });
    await first.run();
    expect(during).toBeInstanceOf(FileLockedError);
    expect(first.status()).toEqual({ queued: 0, awaiting: 0, delivering: 0, answered: 3, dropped: 0 });
    const second = open();
    expect(second.status().answered).toBe(3);
    for (let i = 0; i < 3; i++) second.enqueue(`shared question ${i}`); // answered already: not queued again
    second.enqueue('a fourth question');
    await second.run();
    expect(second.status()).toEqual({ queued: 0, awaiting: 0, delivering: 0, answered: 4, dropped: 0 });
    expect(fake.requests.filter((r) => r === 'POST /gpt/api/query')).toHaveLength(4);
  });

  it('an item that keeps failing is dropped with its reason after the retries', async () => {
    const clock = new ManualClock();
    // Reachable, but every call fails.
    const broken = createServer((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down for repairs"}'));
    await new Promise<void>((r) => broken.listen(0, '127.0.0.1', r));
    running.push({ close: () => new Promise<void>((r) => broken.close(() => r())) });
    const dir = tmp();
    const client = new QuestionClient({ baseUrl: `http://127.0.0.1:${(broken.address() as AddressInfo).port}`, stateDir: dir, clock, attempts: 1, timeoutMs: 500 });
    const pipeline = new QuestionPipeline({ client, stateDir: dir, maxFailures: 3 });
    const failures: Error[] = [];
    pipeline.on('failed', (e) => failures.push(e));
    pipeline.enqueue('doomed');
    await pipeline.run({ until: clock.now() + HOUR });
    expect(pipeline.status()).toEqual({ queued: 0, awaiting: 0, delivering: 0, answered: 0, dropped: 1 });
    expect(pipeline.dropped[0]!.reason).toMatch(/not posted after 3 attempts/);
    expect(failures).toHaveLength(3);
  });

  it('a service that refuses connections stops the run with a NetworkError: nothing dropped, no failure counted, no budget spent', async () => {
    const clock = new ManualClock();
    const fake = await startFakeServices({ clock, question: { difficulty: 2 } });
    await fake.close(); // nothing listens now
    const dir = tmp();
    const client = new QuestionClient({ baseUrl: fake.url, stateDir: dir, clock, timeoutMs: 500 });
    const pipeline = new QuestionPipeline({ client, stateDir: dir });
    pipeline.enqueue('during an outage');
    const err = await pipeline.run({ until: clock.now() + HOUR }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).errno).toBe('ECONNREFUSED');
    expect((err as NetworkError).connected).toBe(false);
    expect(pipeline.status()).toEqual({ queued: 1, awaiting: 0, delivering: 0, answered: 0, dropped: 0 });
    // A run that threw has let go of the state file.
    expect(() => new QuestionPipeline({ client, stateDir: dir }).close()).not.toThrow();
    const saved = JSON.parse(readFileSync(pipelineFile(client, dir), 'utf8'));
    expect(saved.prompts[0]).toMatchObject({ prompt: 'during an outage', failures: 0 });
    expect(saved.prompts[0].posting).toBeFalsy();
    // The config call that never left this machine is not on the limiter's record.
    const limits = JSON.parse(readFileSync(path.join(dir, `limits-${fake.url.host.replace(/[^a-zA-Z0-9.-]/g, '_')}.json`), 'utf8'));
    expect(limits.calls.config ?? []).toEqual([]);
  });
});
