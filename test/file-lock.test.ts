import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryLock } from '../src/fs/file-lock.ts';
import { hasNative } from './helpers/backends.ts';
import { tempDir } from './helpers/tmp.ts';

const RACER = ['--import', 'tsx', 'test/fixtures/lock-racer.ts'];
const children = new Set<ReturnType<typeof spawn>>();

function racer(args: string[], env: NodeJS.ProcessEnv): { out: () => string; exited: Promise<number | null>; kill9: () => Promise<void> } {
  const child = spawn(process.execPath, [...RACER, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) =>
    child.on('exit', (code) => {
      children.delete(child);
      r(code);
    }),
  );
  return {
    out: () => out,
    exited,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

afterEach(async () => {
  for (const c of children) c.kill('SIGKILL');
  children.clear();
});

/** The log's holders never overlap: each "enter" is followed by the same process's "leave". */
function checkAlternation(log: string): number {
  const lines = log.trim().split('\n');
  expect(lines.length % 2).toBe(0);
  for (let i = 0; i < lines.length; i += 2) {
    const [e, pe] = lines[i]!.split(' ');
    const [l, pl] = lines[i + 1]!.split(' ');
    expect([e, l, pe]).toEqual(['enter', 'leave', pl]);
  }
  return lines.length / 2;
}

async function waitForText(get: () => string, text: string): Promise<void> {
  for (let i = 0; i < 600 && !get().includes(text); i++) await new Promise((r) => setTimeout(r, 100));
}

const kinds: { kind: 'os' | 'link'; env: NodeJS.ProcessEnv }[] = [...(hasNative ? [{ kind: 'os' as const, env: {} }] : []), { kind: 'link', env: { POWPRIME_BACKEND: 'js' } }];

describe.each(kinds)('file lock ($kind)', ({ kind, env }) => {
  it('four processes taking one lock 25 times each: never two holders at once', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const lock = path.join(dir, 'x.lock');
    const log = path.join(dir, 'log');
    writeFileSync(log, '');
    const go = path.join(dir, 'go');
    const all = Array.from({ length: 4 }, () => racer(['race', lock, log, '25', go], env));
    for (const r of all) await waitForText(r.out, 'ready');
    writeFileSync(go, '');
    expect(await Promise.all(all.map((r) => r.exited))).toEqual([0, 0, 0, 0]);
    expect(checkAlternation(readFileSync(log, 'utf8'))).toBe(100);
    expect(existsSync(lock)).toBe(false);
  });

  it('a holder killed with -9: four processes started together after it take the lock one at a time', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const lock = path.join(dir, 'x.lock');
    const log = path.join(dir, 'log');
    writeFileSync(log, '');
    for (let round = 0; round < 3; round++) {
      const holder = racer(['hold', lock], env);
      await waitForText(holder.out, 'held');
      expect(holder.out()).toBe(`held ${kind}\n`);
      // While it lives the lock is refused, here too.
      expect(tryLock(lock, 'test file')).toBeNull();
      await holder.kill9();
      // The pid-file protocol leaves its file behind; the OS lock may leave an empty one.
      if (kind === 'link') expect(existsSync(lock)).toBe(true);
      const go = path.join(dir, `go${round}`);
      const all = Array.from({ length: 4 }, () => racer(['race', lock, log, '3', go], env));
      for (const r of all) await waitForText(r.out, 'ready');
      writeFileSync(go, '');
      expect(await Promise.all(all.map((r) => r.exited))).toEqual([0, 0, 0, 0]);
    }
    expect(checkAlternation(readFileSync(log, 'utf8'))).toBe(36);
    expect(existsSync(lock)).toBe(false);
  });
});

describe('file lock (link) takeover', () => {
  it("forty rounds of four processes racing at once over a dead holder's lock file: never two holders", { timeout: 180_000 }, async () => {
    const dir = tempDir();
    const lock = path.join(dir, 'x.lock');
    const log = path.join(dir, 'log');
    writeFileSync(log, '');
    const go = path.join(dir, 'go');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const rounds = 40;
    const all = Array.from({ length: 4 }, () => racer(['stale-race', lock, log, String(rounds), go], { POWPRIME_BACKEND: 'js' }));
    for (let r = 0; r < rounds; r++) {
      for (const x of all) await waitForText(x.out, `ready ${r}`);
      writeFileSync(lock, JSON.stringify({ pid: Number(dead), host: hostname(), nonce: randomBytes(12).toString('hex'), kind: 'link', what: 'test file' }));
      writeFileSync(`${go}.${r}`, '');
      for (const x of all) await waitForText(x.out, `done ${r}`);
    }
    expect(await Promise.all(all.map((r) => r.exited))).toEqual([0, 0, 0, 0]);
    expect(checkAlternation(readFileSync(log, 'utf8'))).toBeGreaterThanOrEqual(rounds);
  });
});

describe('tryLock', () => {
  it('is refused to a second taker in the same process, and release is idempotent', () => {
    const lock = path.join(tempDir(), 'y.lock');
    const a = tryLock(lock, 'y');
    expect(a).not.toBeNull();
    expect(tryLock(lock, 'y')).toBeNull();
    a!.release();
    a!.release();
    const b = tryLock(lock, 'y');
    expect(b).not.toBeNull();
    b!.release();
  });

  it('names the guarded file, not the lock file, when the folder is missing', () => {
    const dir = tempDir();
    let caught: NodeJS.ErrnoException | undefined;
    try {
      tryLock(path.join(dir, 'no', 'x.jsonl.lock'), path.join(dir, 'no', 'x.jsonl'));
    } catch (err) {
      caught = err as NodeJS.ErrnoException;
    }
    expect(caught?.code).toBe('ENOENT');
    expect(caught?.path).toBe(path.join(dir, 'no', 'x.jsonl'));
  });

  it("a lock file that is not a note (someone else's file) is never replaced", () => {
    const lock = path.join(tempDir(), 'z.lock');
    writeFileSync(lock, 'not ours');
    // The OS lock needs only the open file; the pid-file protocol must refuse.
    const got = tryLock(lock, 'z');
    // Taken only as an OS lock (the file's bytes do not matter to it); a pid-file lock would have replaced the file.
    expect(got === null || got.kind === 'os', `got a ${got?.kind} lock`).toBe(true);
    if (got === null) expect(readFileSync(lock, 'utf8')).toBe('not ours');
    got?.release();
  });
});
