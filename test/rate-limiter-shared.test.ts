// Several processes on one state dir share a host's budget: the limiter's
// file is the record, read and changed under its lock, so the calls granted
// across processes never exceed a window's limit.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/tmp.ts';

function racer(file: string, tries: number, go: string): { ready: Promise<void>; given: Promise<number> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/limiter-racer.ts', file, String(tries), go], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let readyResolve!: () => void;
  const ready = new Promise<void>((r) => (readyResolve = r));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('ready')) readyResolve();
  });
  const given = new Promise<number>((resolve, reject) =>
    child.on('exit', (code) => {
      const m = /given (\d+)/.exec(out);
      if (code !== 0 || !m) reject(new Error(`racer exited ${code}: ${out}`));
      else resolve(Number(m[1]));
    }),
  );
  return { ready, given };
}

describe('a rate limit shared by processes', () => {
  it('four processes asking at once for a limit of 5 are given 5 calls in all, and the file records 5', async () => {
    const dir = tempDir('powprime-limiter-');
    const file = path.join(dir, 'limits-host.json');
    const go = path.join(dir, 'go');
    const racers = Array.from({ length: 4 }, () => racer(file, 4, go));
    await Promise.all(racers.map((r) => r.ready));
    writeFileSync(go, '');
    const given = await Promise.all(racers.map((r) => r.given));
    expect(given.reduce((a, b) => a + b, 0)).toBe(5);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { calls: { r: number[] } };
    expect(saved.calls.r).toHaveLength(5);
  });
});
