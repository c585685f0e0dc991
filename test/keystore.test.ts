// The keystore shared by processes: an append-only journal beside a snapshot,
// every operation under the keystore's lock; its shape checked on load.
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keystore, type LedgerEntry } from '../src/clients/registry/keystore.ts';
import { StateFileCorruptError } from '../src/clients/errors.ts';
import { b85decode } from '../src/clients/registry/base85.ts';
import { startFakeServices, type FakeServices } from '../src/fake-services/index.ts';
import { runCli } from './helpers/cli.ts';
import { killAll, startCli } from './helpers/processes.ts';
import { tempDir } from './helpers/tmp.ts';

const entry = (prime: string, state: LedgerEntry['state'] = 'rejected'): LedgerEntry => ({ prime, bits: BigInt(prime).toString(2).length, state, at: 1, ident: 'x' });

describe('keystore shape on load', () => {
  it.each([
    ['{}', /is an object, not a list of keystore entries/],
    ['42', /is number 42, not a list of keystore entries/],
    ['"str"', /is string "str", not a list of keystore entries/],
    ['[null]', /entry 1 is null, not an entry/],
    ['[1,2,3]', /entry 1 is number 1, not an entry/],
    [JSON.stringify([entry('23'), { ...entry('47'), state: 'flying' }]), /entry 2 \(prime 47\) has an unknown state "flying"/],
    [JSON.stringify([entry('23', 'registered'), entry('47'), entry('23')]), /has two entries for prime 23 \(entries 1 and 3\)/],
  ])('%s: ERR_STATE_CORRUPT naming the problem, the file untouched, nothing added', (text, problem) => {
    const dir = tempDir();
    const file = path.join(dir, 'keys.json');
    writeFileSync(file, text);
    let caught: unknown;
    try {
      new Keystore(file);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StateFileCorruptError);
    expect((caught as StateFileCorruptError).code).toBe('ERR_STATE_CORRUPT');
    expect((caught as Error).message).toMatch(problem);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(dir)).toEqual(['keys.json']);
  });

  it('the CLI says it in one line, exit 1, and sends nothing', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'keys.json');
    writeFileSync(file, '[null]');
    const r = await runCli('registry', 'add', '23', '--keystore', file, '--base-url', 'http://127.0.0.1:1', '--no-limits');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`powprime: ${file} entry 1 is null, not an entry; it holds keys, so powprime will not replace it: restore it from a backup or repair it\n`);
  });
});

describe('keystore journal', () => {
  it('a change is one appended line; another instance (another process) sees it; a fold empties the journal into keys.json', () => {
    const dir = tempDir();
    const file = path.join(dir, 'keys.json');
    const a = new Keystore(file);
    const b = new Keystore(file);
    a.put(entry('23'));
    const snapshot = readFileSync(file, 'utf8');
    const journal = `${file}.journal`;
    const size1 = statSync(journal).size;
    b.put(entry('47'));
    a.put({ ...entry('23'), state: 'registered-elsewhere' });
    // Two more lines, the snapshot as it was.
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(4);
    expect(statSync(journal).size).toBeGreaterThan(size1);
    expect(readFileSync(file, 'utf8')).toBe(snapshot);
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    expect(b.get(23n)?.state).toBe('registered-elsewhere');
    expect(
      a
        .all()
        .map((e) => e.prime)
        .sort(),
    ).toEqual(['23', '47']);
    b.compact();
    expect(statSync(journal).size).toBe(0);
    expect((JSON.parse(readFileSync(file, 'utf8')) as LedgerEntry[]).map((e) => [e.prime, e.state]).sort()).toEqual([
      ['23', 'registered-elsewhere'],
      ['47', 'rejected'],
    ]);
    // a learns of the fold and keeps going from the new snapshot.
    a.put(entry('59'));
    expect(
      new Keystore(file)
        .all()
        .map((e) => e.prime)
        .sort(),
    ).toEqual(['23', '47', '59']);
    expect(readdirSync(dir).sort()).toEqual(['keys.json', 'keys.json.journal']);
  });

  it('a record torn by a crash is dropped; a bad record before the end is refused naming its line', () => {
    const dir = tempDir();
    const file = path.join(dir, 'keys.json');
    const k = new Keystore(file);
    k.put(entry('23'));
    k.put(entry('47'));
    const journal = `${file}.journal`;
    appendFileSync(journal, '{"prime":"59","bi');
    expect(
      new Keystore(file)
        .all()
        .map((e) => e.prime)
        .sort(),
    ).toEqual(['23', '47']);
    expect(readFileSync(journal, 'utf8').endsWith('\n')).toBe(true);
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[1] = '{"prime":"23","bits":5,"state":"registered","at":1,"key":7}';
    writeFileSync(journal, lines.join('\n'));
    expect(() => new Keystore(file)).toThrow(new RegExp(`${journal} line 2 \\(prime 23\\) has a "key" that is not a string`));
  });

  it('a bad record read again by the same keystore is named by its own line number again', () => {
    const dir = tempDir();
    const file = path.join(dir, 'keys.json');
    const k = new Keystore(file);
    k.put(entry('23'));
    // Another process appends after what k has read: a good record (line 3), then a bad one (line 4).
    new Keystore(file).put(entry('47'));
    const journal = `${file}.journal`;
    appendFileSync(journal, '{"prime":"59","bits":6,"state":"registered","at":1,"key":7}\n');
    expect(readFileSync(journal, 'utf8').split('\n')[3]).toContain('"prime":"59"');
    const bad = new RegExp(`${journal} line 4 \\(prime 59\\) has a "key" that is not a string`);
    expect(() => k.get(23n)).toThrow(bad);
    // Read again (a retry, or the next operation of a long run): still line 4, not a line further on for each record before it.
    expect(() => k.get(23n)).toThrow(bad);
    expect(() => k.all()).toThrow(bad);
    // A fresh reader counts from line 1 and agrees.
    expect(() => new Keystore(file)).toThrow(bad);
  });

  it('a room kept for an answer is never cut once another process has folded the journal and written in its place', () => {
    const dir = tempDir();
    const file = path.join(dir, 'keys.json');
    const a = new Keystore(file);
    const b = new Keystore(file);
    const sending: LedgerEntry = { prime: '1000000007', bits: 30, state: 'sending', at: 1, owner: { pid: 1, host: 'h' } };
    a.put(sending, { reserveNext: true });
    // Another command ends: the journal (with a's room) is folded into the snapshot.
    b.close();
    // b's record ends exactly where a's room ended: a must not take those bytes for its room.
    const base: LedgerEntry = { prime: '2000000011', bits: 31, state: 'registered', at: 1, key: '' };
    const keyLength = JSON.stringify(sending).length + 2048 - JSON.stringify(base).length;
    b.put({ ...base, key: 'K'.repeat(keyLength) });
    a.put({ ...sending, state: 'registered', key: 'KEY-A' });
    const after = new Keystore(file);
    expect(after.get(2000000011n)?.key).toBe('K'.repeat(keyLength));
    expect(after.get(1000000007n)?.key).toBe('KEY-A');
  });
});

let fake: FakeServices;
beforeAll(async () => {
  fake = await startFakeServices();
});
afterAll(async () => {
  for (const c of racers) c.kill('SIGKILL');
  await killAll();
  fake.close();
});

const RFC_PRIMES = (JSON.parse(readFileSync(new URL('./vectors/rfc-safe-primes.json', import.meta.url), 'utf8')) as { safe_primes: Record<string, string> }).safe_primes;

/** test/fixtures/register-racer.ts: ready once it holds its Registrar, then registers when the GO file appears. */
function startRacer(args: string[]): { ready: Promise<void>; done: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/register-racer.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  racers.add(child);
  let out = '';
  let err = '';
  let ready: () => void = () => {};
  const readyP = new Promise<void>((r) => (ready = r));
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.startsWith('ready\n')) ready();
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<string>((resolve, reject) =>
    child.on('exit', (code) => {
      racers.delete(child);
      if (code === 0) resolve(out.split('\n')[1] ?? '');
      else reject(new Error(`register-racer exited ${code}: ${err}`));
    }),
  );
  return { ready: readyP, done };
}
const racers = new Set<ChildProcess>();

const ledger = (file: string): Map<string, LedgerEntry> => new Map(new Keystore(file).all().map((e) => [e.prime, e]));
const primesOf = (out: string): string[] =>
  readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).prime as string);

describe('processes sharing one keystore', () => {
  it('processes registering the same prime through one keystore at once: it is sent once and its key kept', { timeout: 300_000 }, async () => {
    // Large primes: the local safe-prime check between looking at the keystore and marking the
    // prime is then tens of milliseconds, the window two processes raced through.
    const primes = ['rfc3526-modp-3072', 'rfc3526-modp-4096', 'rfc7919-ffdhe3072', 'rfc7919-ffdhe4096'].map((name) => BigInt(RFC_PRIMES[name]!));
    const own = await startFakeServices({ unlimited: true });
    try {
      for (const p of primes) {
        const dir = tempDir();
        const keys = path.join(dir, 'keys.json');
        const go = path.join(dir, 'go');
        const racers = [1, 2, 3].map((n) => startRacer([own.url.href, keys, path.join(dir, `state${n}`), p.toString(), go]));
        await Promise.all(racers.map((r) => r.ready));
        writeFileSync(go, '');
        const states = await Promise.all(racers.map((r) => r.done));
        expect(own.requests.filter((r) => r === 'POST /api/add')).toHaveLength(primes.indexOf(p) + 1);
        // One racer registered it; the others found it in the keystore (sending or registered).
        expect(states.filter((s) => s === 'registered').length).toBeGreaterThanOrEqual(1);
        expect(states).not.toContain('registered-elsewhere');
        const e = new Keystore(keys).get(p);
        expect(e?.state).toBe('registered');
        expect(b85decode(e!.key!)).toEqual(own.registry.keyOf(p));
      }
    } finally {
      own.close();
    }
  });
  it('two search --register runs at once (different sizes and --out): every key of both is kept', { timeout: 300_000 }, async () => {
    const dir = tempDir();
    const keys = path.join(dir, 'keys.json');
    const common = ['--register', '--base-url', fake.url.href, '--state-dir', path.join(dir, 'state'), '--keystore', keys, '--no-limits', '--json'];
    const [a, b] = await Promise.all([
      runCli('search', '--bits', '128', '--count', '30', '--seed', '1', '--out', path.join(dir, 'a.jsonl'), ...common),
      runCli('search', '--bits', '160', '--count', '30', '--seed', '2', '--out', path.join(dir, 'b.jsonl'), ...common),
    ]);
    expect(a.status, a.stderr).toBe(0);
    expect(b.status, b.stderr).toBe(0);
    expect(JSON.parse(a.stdout).registry.registered).toBe(30);
    expect(JSON.parse(b.stdout).registry.registered).toBe(30);
    const stored = JSON.parse(readFileSync(keys, 'utf8')) as LedgerEntry[];
    expect(stored).toHaveLength(60);
    for (const p of [...primesOf(path.join(dir, 'a.jsonl')), ...primesOf(path.join(dir, 'b.jsonl'))]) {
      const e = stored.find((x) => x.prime === p);
      expect(e?.state).toBe('registered');
      // The key the registry holds for it, decrypted right.
      expect(b85decode(e!.key!)).toEqual(fake.registry.keyOf(BigInt(p)));
    }
  });

  it('two search --register runs of one seed on one keystore: each prime counted once in each summary, as sent here or registered by the other, never as rejected', { timeout: 300_000 }, async () => {
    // A registry that takes a while to answer /add: the other run meets many primes in flight.
    const own = await startFakeServices({ unlimited: true, registry: { addDelayMs: 150 } });
    try {
      const dir = tempDir();
      const keys = path.join(dir, 'keys.json');
      const common = ['--bits', '128', '--count', '12', '--seed', '42', '--register', '--base-url', own.url.href, '--state-dir', path.join(dir, 'state'), '--keystore', keys, '--no-limits'];
      const [a, b] = await Promise.all([runCli('search', ...common, '--out', path.join(dir, 'a.jsonl'), '--json'), runCli('search', ...common, '--out', path.join(dir, 'b.jsonl'))]);
      expect(a.status, a.stderr).toBe(0);
      expect(b.status, b.stderr).toBe(0);
      const primes = primesOf(path.join(dir, 'a.jsonl'));
      expect(primesOf(path.join(dir, 'b.jsonl'))).toEqual(primes);
      // Sent once each, and every key kept.
      const added = own.registry.added.map(String);
      expect(added.sort()).toEqual([...new Set(primes)].sort());
      const states = ledger(keys);
      for (const p of primes) expect(b85decode(states.get(p)!.key!)).toEqual(own.registry.keyOf(BigInt(p)));
      const tallyA = JSON.parse(a.stdout).registry as { registered: number };
      expect(tallyA).toEqual({ registered: tallyA.registered, alreadyRegistered: 12 - tallyA.registered, otherProcess: 0, registeredElsewhere: 0, rejected: 0, keyLost: 0, belowRequirements: 0 });
      // The text summary says the same of the other run: what it sent, and the rest as registered by the first.
      const registeredB = 12 - tallyA.registered;
      const words = [`${registeredB} registered`, `${tallyA.registered} already registered (keys in the keystore)`].filter((w) => !w.startsWith('0 '));
      expect(b.stdout.trim()).toBe(`12 new safe primes; 12 in ${path.join(dir, 'b.jsonl')} (seed 42); registry: ${words.join(', ')}`);
      expect(a.stderr + b.stderr).not.toMatch(/rejected/);
    } finally {
      await own.close();
    }
  });

  it('a second identical search --register started meanwhile is refused before it reads, recovers or registers anything', { timeout: 300_000 }, async () => {
    const dir = tempDir();
    const keys = path.join(dir, 'keys.json');
    const out = path.join(dir, 'p.jsonl');
    // A count the first run cannot finish before the second starts, however fast the machine: it is killed at the end.
    const args = [
      'search',
      '--bits',
      '512',
      '--count',
      '100000',
      '--seed',
      '4',
      '--out',
      out,
      '--register',
      '--base-url',
      fake.url.href,
      '--state-dir',
      path.join(dir, 'state'),
      '--keystore',
      keys,
      '--no-limits',
    ];
    const first = startCli(args);
    await first.waitFor(() => readFileSync(out, 'utf8').split('\n').length > 2, 'two lines');
    const requestsBefore = fake.requests.length;
    const second = await runCli(...args);
    expect(second.status).toBe(2);
    expect(second.stderr).toBe(`powprime: --out ${out} is being written by another run (pid ${first.child.pid}); wait for it to end or stop it, or use another file\n`);
    // It asked the registry nothing (the first run may have, meanwhile: only registrations of its own primes).
    const mine = new Set(primesOf(out));
    for (const r of fake.requests.slice(requestsBefore)) expect(r).toMatch(/^(POST \/api\/add|GET \/api\/(totp|requirements).*)$/);
    await first.kill9();
    const entries = new Keystore(keys).all();
    expect(entries.filter((e) => e.state === 'key-lost')).toEqual([]);
    for (const e of entries) expect(mine.has(e.prime)).toBe(true);
  });

  it('search --register killed with -9 at random moments, rerun each time: every prime registered once, key-lost only for a prime in flight at the kill', { timeout: 600_000 }, async () => {
    const dir = tempDir();
    const keys = path.join(dir, 'keys.json');
    const out = path.join(dir, 'p.jsonl');
    const args = [
      'search',
      '--bits',
      '256',
      '--count',
      '40',
      '--seed',
      '3',
      '--out',
      out,
      '--register',
      '--base-url',
      fake.url.href,
      '--state-dir',
      path.join(dir, 'state'),
      '--keystore',
      keys,
      '--no-limits',
      '--json',
    ];
    let lostReported = 0;
    /** Per kill, the prime the registry took last before that process ended: the only one whose answer may not have been journaled. */
    const inFlight = new Set<string>();
    for (let round = 0; round < 8; round++) {
      const addedBefore = fake.registry.added.length;
      const run = startCli(args);
      const have = (): number => {
        try {
          return readFileSync(out, 'utf8').split('\n').length - 1;
        } catch {
          return 0;
        }
      };
      const start = have();
      await run.waitFor(() => have() >= start + 1 + (round % 3), 'new lines').catch(() => {});
      // A random moment after that: searching, appending or registering.
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 1500)));
      await run.kill9();
      if (fake.registry.added.length > addedBefore) inFlight.add(fake.registry.added.at(-1)!.toString());
      lostReported += (run.stderr().match(/KEY LOST/g) ?? []).length;
    }
    const last = await runCli(...args);
    expect(last.status, last.stderr).toBe(0);
    lostReported += (last.stderr.match(/KEY LOST/g) ?? []).length;
    const primes = primesOf(out);
    expect(primes).toHaveLength(40);
    const states = ledger(keys);
    const lost = primes.filter((p) => states.get(p)?.state === 'key-lost');
    for (const p of primes) expect(['registered', 'key-lost']).toContain(states.get(p)?.state);
    for (const p of primes) if (states.get(p)?.state === 'registered') expect(b85decode(states.get(p)!.key!)).toEqual(fake.registry.keyOf(BigInt(p)));
    // Never sent twice, and each loss reported when found.
    const added = fake.registry.added.filter((x) => primes.includes(x.toString()));
    expect(new Set(added).size).toBe(added.length);
    expect(lostReported).toBe(lost.length);
    // Lost only in the window from sending a prime to journaling the answer: the prime in flight when a process was killed.
    for (const p of lost) expect(inFlight).toContain(p);
  });
});
