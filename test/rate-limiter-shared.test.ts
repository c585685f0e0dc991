// Several processes on one state dir share a host's budget: the limiter's
// file is the record, read and changed under its lock, so the calls granted
// across processes never exceed a window's limit.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clients/clock.ts';
import { RateLimiter } from '../src/clients/http/rate-limiter.ts';
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

describe("a call's record moves to when its request ended", () => {
  it('settle moves the record, keeps the list in order, makes a pruned record again, and never throws', async () => {
    const clock = new ManualClock(1_000_000);
    const file = path.join(tempDir('powprime-settle-'), 'limits.json');
    const limiter = new RateLimiter({ r: [{ limit: 2, periodMs: 1000 }] }, clock, file);
    const a = await limiter.acquire('r');
    clock.advance(10);
    const b = await limiter.acquire('r');
    // The first request ends last (it was slowed on its way): its record moves past the second's.
    clock.advance(300);
    limiter.settle('r', a);
    const saved = (): number[] => (JSON.parse(readFileSync(file, 'utf8')) as { calls: { r: number[] } }).calls.r;
    expect(saved()).toEqual([b, a + 310]);
    // The next slot is spaced from the later instant: 1.1 s after the first request ended, not after it was sent.
    expect(limiter.nextSlot('r')).toBe(b + 1100);
    clock.advance(5_000);
    await limiter.acquire('r'); // prunes b, older than every window
    limiter.settle('r', b);
    expect(saved()).toEqual([clock.now(), clock.now()]);
    // A record that cannot be saved (its folder replaced by a file) is left as it was: the answer still reaches its caller.
    const dir = tempDir('powprime-settle-');
    const elsewhere = new RateLimiter({ r: [{ limit: 2, periodMs: 1000 }] }, clock, path.join(dir, 'sub', 'limits.json'));
    const c = await elsewhere.acquire('r');
    rmSync(path.join(dir, 'sub'), { recursive: true });
    writeFileSync(path.join(dir, 'sub'), '');
    clock.advance(1);
    await expect(elsewhere.acquire('r')).rejects.toThrow(); // the record is out of reach
    expect(() => elsewhere.settle('r', c)).not.toThrow();
  });
});
