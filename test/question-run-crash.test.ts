// `question run` under kill -9: a fake question service in its own process
// (answers after 4 s, some with a file), the client killed at random
// moments while questions are posted, answers arrive and files download,
// then rerun until it finishes. Every prompt must be in the output exactly
// once and every file saved with its content.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY } from './helpers/cli.ts';
import { rng } from './helpers/oracles.ts';
import { tempDir } from './helpers/tmp.ts';

let server: ChildProcess;
let url = '';

beforeAll(async () => {
  server = spawn(process.execPath, [...CLI_ENTRY, 'fake-services', '--no-limits', '--answer-delay', '4s', '--difficulty', '1', '--json'], { stdio: 'pipe' });
  url = await new Promise<string>((resolve, reject) => {
    server.stdout!.once('data', (d: Buffer) => resolve((JSON.parse(d.toString()) as { url: string }).url));
    server.once('exit', (c) => reject(new Error(`fake-services exited ${c}`)));
  });
});
afterAll(() => {
  server.kill('SIGTERM');
});

const PROMPTS = Array.from({ length: 12 }, (_, i) => (i % 3 === 2 ? `question ${i}, plain` : `question ${i}, with a file please`));

describe('question run killed with -9 and rerun', () => {
  it('ends with every answer once and every file saved', async () => {
    const dir = tempDir('powprime-qrun-');
    const prompts = path.join(dir, 'prompts.txt');
    writeFileSync(prompts, `${PROMPTS.join('\n')}\n`);
    const out = path.join(dir, 'answers.jsonl');
    const files = path.join(dir, 'files');
    const args = [
      ...CLI_ENTRY,
      'question',
      'run',
      '--prompts',
      prompts,
      '--out',
      out,
      '--files-dir',
      files,
      '--state-dir',
      path.join(dir, 'state'),
      '--base-url',
      url,
      '--no-limits',
      '--first-check',
      '0',
      '--max-interval',
      '1',
    ];
    const next = rng(20261122);
    let kills = 0;
    for (let attempt = 0; attempt < 12; attempt++) {
      const child = spawn(process.execPath, args, { stdio: 'pipe' });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      // The first runs are killed at random moments; the last ones may finish.
      const killAt = attempt < 6 ? 300 + next() * 1500 : 120_000;
      const timer = setTimeout(() => child.kill('SIGKILL'), killAt);
      const code = await exited;
      clearTimeout(timer);
      if (code === 0) break;
      if (code !== null) throw new Error(`question run exited ${code}: ${stderr}`);
      kills++;
    }
    expect(kills).toBeGreaterThan(2);
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string; question: string; files?: { filename: string }[]; missingFiles?: unknown });
    const keys = lines.map((l) => l.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(lines.map((l) => l.question).sort()).toEqual([...PROMPTS].sort());
    for (const l of lines) {
      expect(l.missingFiles).toBeUndefined();
      const withFile = l.question.includes('file');
      expect(Boolean(l.files?.length)).toBe(withFile);
      if (!withFile) continue;
      const saved = readdirSync(files, { recursive: true, encoding: 'utf8' }).filter((f) => existsSync(path.join(files, f)));
      const contents = saved
        .map((f) => path.join(files, f))
        .filter((f) => f.endsWith('notes.txt'))
        .map((f) => readFileSync(f, 'utf8'));
      expect(contents).toContain(`notes for: ${l.question}\n`);
    }
  }, 300_000);
});
