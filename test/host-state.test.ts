// Client state is kept per service address (host:port): what one server said
// is never taken for another's. Files of earlier versions carry no host and
// belong to the default address (the CLI's POWPRIME_*_URL).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostStateFile, hostTag } from '../src/clients/http/state-paths.ts';
import { pipelineFile } from '../src/clients/question/pipeline.ts';
import { PrimeRegistryClient } from '../src/clients/registry/client.ts';
import { QuestionClient, QuestionPipeline } from '../src/index.ts';
import { startFakeServices, type FakeServices } from '../src/fake-services/index.ts';
import { runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

let a: FakeServices;
let b: FakeServices;
beforeAll(async () => {
  const opts = { unlimited: true, question: { unlimited: true, difficulty: 1, answerDelayMs: 0 } };
  a = await startFakeServices(opts);
  b = await startFakeServices(opts);
});
afterAll(async () => {
  await a.close();
  await b.close();
});

const tmp = (): string => tempDir('powprime-host-');
// No default addresses from the environment the tests run in.
const NO_DEFAULTS = { POWPRIME_REGISTRY_URL: undefined, POWPRIME_QUESTION_URL: undefined, POWPRIME_ADS_URL: undefined };
const cli = runCli.withEnv(NO_DEFAULTS);
const posts = (s: FakeServices, route: string): number => s.requests.filter((r) => r === route).length;

async function safePrime(seed: string): Promise<string> {
  const found = await cli('search', '--bits', '128', '--count', '1', '--seed', seed);
  expect(found.status, found.stderr).toBe(0);
  return JSON.parse(found.stdout).prime as string;
}

describe('state per host', () => {
  it('registry: a prime registered on one server is not taken as registered on another; add there really registers it', async () => {
    const state = tmp();
    const p = await safePrime('21');
    const on = (s: FakeServices): string[] => ['--base-url', s.url.href, '--state-dir', state, '--no-limits', '--json'];
    const addA = await cli('registry', 'add', p, ...on(a));
    expect(addA.status, addA.stderr).toBe(0);
    expect(JSON.parse(addA.stdout)).toMatchObject({ prime: p, state: 'registered' });

    const getB = await cli('registry', 'get', p, ...on(b));
    expect(getB.status).toBe(1);
    expect(getB.stdout.trim()).toBe('null');
    const addB = await cli('registry', 'add', p, ...on(b));
    expect(addB.status, addB.stderr).toBe(0);
    expect(JSON.parse(addB.stdout)).toMatchObject({ prime: p, state: 'registered', hasKey: true });
    expect(b.registry.added.filter((x) => x === BigInt(p))).toHaveLength(1);
    const again = await cli('registry', 'get', p, ...on(b));
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ bits: 128 });

    // One keystore per registry, each holding its own keys; no host-less keys.json.
    const keys = (s: FakeServices): { prime: string; key?: string }[] => JSON.parse(readFileSync(path.join(state, `keys-${hostTag(s.url)}.json`), 'utf8'));
    expect(keys(a).find((e) => e.prime === p)?.key).toEqual(expect.any(String));
    expect(keys(b).find((e) => e.prime === p)?.key).toEqual(expect.any(String));
    expect(keys(a).find((e) => e.prime === p)?.key).not.toBe(keys(b).find((e) => e.prime === p)?.key);
    expect(existsSync(path.join(state, 'keys.json'))).toBe(false);
  });

  it('question run: the same prompts against another server are posted there, and its answers written', async () => {
    const dir = tmp();
    const prompts = path.join(dir, 'prompts.txt');
    writeFileSync(prompts, 'per host one\nper host two\n');
    const run = (s: FakeServices, out: string): Promise<{ status: number | null; stdout: string; stderr: string }> =>
      cli(
        'question',
        'run',
        '--prompts',
        prompts,
        '--out',
        path.join(dir, out),
        '--files-dir',
        path.join(dir, 'files'),
        '--base-url',
        s.url.href,
        '--state-dir',
        path.join(dir, 'state'),
        '--no-limits',
        '--first-check',
        '0',
        '--max-interval',
        '1',
      );
    const beforeB = posts(b, 'POST /gpt/api/query');
    const first = await run(a, 'a.jsonl');
    expect(first.status, first.stderr).toBe(0);
    expect(posts(b, 'POST /gpt/api/query')).toBe(beforeB);
    const beforeA = posts(a, 'POST /gpt/api/query');
    const second = await run(b, 'b.jsonl');
    expect(second.status, second.stderr).toBe(0);
    expect(posts(b, 'POST /gpt/api/query')).toBe(beforeB + 2);
    expect(posts(a, 'POST /gpt/api/query')).toBe(beforeA);
    const answers = (out: string): { id: string; question: string }[] =>
      readFileSync(path.join(dir, out), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; question: string });
    expect(
      answers('b.jsonl')
        .map((t) => t.question)
        .sort(),
    ).toEqual(['per host one', 'per host two']);
    // B's own questions, not A's ids.
    const idsA = new Set(answers('a.jsonl').map((t) => t.id));
    expect(answers('b.jsonl').filter((t) => idsA.has(t.id))).toEqual([]);
    expect(
      readdirSync(path.join(dir, 'state'))
        .filter((f) => /^pipeline.*\.json$/.test(f))
        .sort(),
    ).toEqual([`pipeline-${hostTag(a.url)}.json`, `pipeline-${hostTag(b.url)}.json`].sort());
  });

  it("ads: after another server's index is cached, an unreachable server is 'cannot reach', exit 1, not the cached ads", async () => {
    const state = tmp();
    const ok = await cli('ads', 'all', '--json', '--base-url', a.url.href, '--state-dir', state, '--no-limits');
    expect(ok.status, ok.stderr).toBe(0);
    expect((JSON.parse(ok.stdout) as unknown[]).length).toBeGreaterThan(0);
    const gone = await cli('ads', 'all', '--json', '--base-url', 'http://127.0.0.1:1', '--state-dir', state, '--no-limits');
    expect(gone.status).toBe(1);
    expect(gone.stdout).toBe('');
    expect(gone.stderr).toMatch(/cannot reach/);
  });
});

describe('files of earlier versions (no host) belong to the default address', () => {
  it('hostStateFile: the legacy file for the default host while its per-host file does not exist; the per-host file otherwise', () => {
    const dir = tmp();
    expect(hostStateFile(dir, 'keys.json', 'h_1', 'h_1')).toBe(path.join(dir, 'keys-h_1.json'));
    writeFileSync(path.join(dir, 'keys.json'), '[]');
    expect(hostStateFile(dir, 'keys.json', 'h_1', 'h_1')).toBe(path.join(dir, 'keys.json'));
    expect(hostStateFile(dir, 'keys.json', 'h_2', 'h_1')).toBe(path.join(dir, 'keys-h_2.json'));
    expect(hostStateFile(dir, 'keys.json', 'h_1')).toBe(path.join(dir, 'keys-h_1.json'));
    expect(hostStateFile(dir, 'images', 'h_1')).toBe(path.join(dir, 'images-h_1'));
    writeFileSync(path.join(dir, 'keys-h_1.json'), '[]');
    expect(hostStateFile(dir, 'keys.json', 'h_1', 'h_1')).toBe(path.join(dir, 'keys-h_1.json'));
  });

  it('hostStateFile takes one file name: a folder in it, which could reach outside the state dir, is refused by name', () => {
    const dir = tmp();
    for (const name of ['../../../etc/passwd', 'a/b.json', 'a\\b.json', '', '.', '..']) {
      expect(() => hostStateFile(dir, name, 'h_1')).toThrow(RangeError);
      expect(() => hostStateFile(dir, name, 'h_1')).toThrow(/^name must be a file name, with no folder in it/);
    }
    expect(() => hostStateFile(dir, 5 as never, 'h_1')).toThrow(/^name must be a file name \(got 5\)$/);
    expect(hostStateFile(dir, '.hidden.json', 'h_1')).toBe(path.join(dir, '.hidden-h_1.json'));
  });

  it("a client's hostFile: legacy only when asked, for the defaultBaseUrl's host", () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'keys.json'), '[]');
    const at = (baseUrl: string, defaultBaseUrl?: string): PrimeRegistryClient => new PrimeRegistryClient({ baseUrl, stateDir: dir, ...(defaultBaseUrl ? { defaultBaseUrl } : {}) });
    expect(at('http://127.0.0.1:9/', 'http://127.0.0.1:9/x').hostFile('keys.json', { legacy: true })).toBe(path.join(dir, 'keys.json'));
    expect(at('http://127.0.0.1:9/', 'http://127.0.0.1:9/').hostFile('keys.json')).toBe(path.join(dir, 'keys-127.0.0.1_9.json'));
    expect(at('http://127.0.0.1:8/', 'http://127.0.0.1:9/').hostFile('keys.json', { legacy: true })).toBe(path.join(dir, 'keys-127.0.0.1_8.json'));
    expect(at('http://127.0.0.1:9/').hostFile('keys.json', { legacy: true })).toBe(path.join(dir, 'keys-127.0.0.1_9.json'));
    expect(() => at('http://127.0.0.1:9/', 'not a url')).toThrow(expect.objectContaining({ argument: 'defaultBaseUrl' }));
  });

  it("a legacy pipeline.json is the default host's queue; another host's pipeline starts empty", () => {
    const dir = tmp();
    const saved = { prompts: [], awaiting: [], delivering: [], dropped: [], answered: [{ key: 'k', prompt: 'p', id: 'old-id', at: 1 }] };
    writeFileSync(path.join(dir, 'pipeline.json'), JSON.stringify(saved));
    const client = (baseUrl: string): QuestionClient => new QuestionClient({ baseUrl, stateDir: dir, defaultBaseUrl: 'http://127.0.0.1:9' });
    expect(pipelineFile(client('http://127.0.0.1:9'), dir)).toBe(path.join(dir, 'pipeline.json'));
    expect(new QuestionPipeline({ client: client('http://127.0.0.1:9'), stateDir: dir }).status().answered).toBe(1);
    expect(new QuestionPipeline({ client: client('http://127.0.0.1:8'), stateDir: dir }).status().answered).toBe(0);
  });

  it('CLI: a legacy keys.json in the state dir is used for the default registry (POWPRIME_REGISTRY_URL), and only for it', async () => {
    const state = tmp();
    mkdirSync(state, { recursive: true });
    const p = await safePrime('22');
    const legacy = path.join(state, 'keys.json');
    // What an earlier version wrote: the keystore at <state-dir>/keys.json.
    const first = await cli('registry', 'add', p, '--json', '--base-url', a.url.href, '--state-dir', state, '--no-limits', '--keystore', legacy);
    expect(first.status, first.stderr).toBe(0);
    expect(a.registry.added.filter((x) => x === BigInt(p))).toHaveLength(1);
    const before = readFileSync(legacy, 'utf8');

    // The default registry, without --base-url: the legacy keystore knows the prime; nothing is sent.
    const withDefault = runCli.withEnv({ ...NO_DEFAULTS, POWPRIME_REGISTRY_URL: a.url.href });
    const again = await withDefault('registry', 'add', p, '--json', '--state-dir', state, '--no-limits');
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ prime: p, state: 'registered' });
    expect(a.registry.added.filter((x) => x === BigInt(p))).toHaveLength(1);
    const rekey = await withDefault('registry', 'rekey', p, '--json', '--state-dir', state, '--no-limits');
    expect(rekey.status, rekey.stderr).toBe(0);
    expect(readFileSync(legacy, 'utf8')).not.toBe(before); // the new key went into the legacy file
    expect(existsSync(path.join(state, `keys-${hostTag(a.url)}.json`))).toBe(false);

    // Another registry while the default is set: its own keystore, the legacy one left alone and said so.
    const other = await withDefault('registry', 'add', p, '--json', '--base-url', b.url.href, '--state-dir', state, '--no-limits');
    expect(other.status, other.stderr).toBe(0);
    expect(JSON.parse(other.stdout)).toMatchObject({ prime: p, state: 'registered' });
    expect(b.registry.added.filter((x) => x === BigInt(p))).toHaveLength(1);
    expect(other.stderr).toContain(
      `keys.json, the keystore of an earlier version, belongs to the default registry (POWPRIME_REGISTRY_URL: ${a.url.host}) and is not used for ${b.url.host}, whose keystore is `,
    );
    expect(existsSync(path.join(state, `keys-${hostTag(b.url)}.json`))).toBe(true);
  });
});
