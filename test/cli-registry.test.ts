import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, runCli } from './helpers/cli.ts';
import { startFakeServices, type FakeServices } from '../src/fake-services/index.ts';
import { hostStateFile, hostTag } from '../src/clients/http/state-paths.ts';
import { Keystore } from '../src/clients/registry/keystore.ts';
import { b85decode } from '../src/clients/registry/base85.ts';
import { jsonConventionErrors, jsonValues } from './helpers/json-convention.ts';
import { tempDir } from './helpers/tmp.ts';

let fake: FakeServices;
beforeAll(async () => {
  fake = await startFakeServices();
});
afterAll(() => fake.close());
const tmp = (): string => tempDir('powprime-clir-');

const cli = runCli;

describe('powprime registry and ads', () => {
  it('add, get, note, rekey, ranges, requirements; keys stay out of the output unless asked', async () => {
    const state = tmp();
    const common = ['--base-url', fake.url.href, '--state-dir', state, '--no-limits'];
    const found = await cli('search', '--bits', '128', '--count', '1', '--seed', '4');
    const p = JSON.parse(found.stdout).prime as string;
    const add = await cli('registry', 'add', p, '--json', ...common);
    expect(add.status, add.stderr).toBe(0);
    const entry = JSON.parse(add.stdout);
    expect(entry).toMatchObject({ prime: p, state: 'registered', hasKey: true });
    expect(entry.key).toBeUndefined();
    const got = JSON.parse((await cli('registry', 'get', p, '--json', ...common)).stdout) as Record<string, unknown>;
    // One JSON style: camelCase keys, instants as ISO 8601.
    expect(got).toMatchObject({ bits: 128, claimedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect(Object.keys(got).filter((k) => k.includes('_'))).toEqual([]);
    expect(entry.at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const human = await cli('registry', 'get', p, ...common);
    expect(human.stdout).toMatch(/^bits 128, trans \d+, registered \d{4}-/);
    expect(() => JSON.parse(human.stdout)).toThrow();
    expect(JSON.parse((await cli('registry', 'note', p, 'hello', '--json', ...common)).stdout)).toEqual({ success: 'note replaced', prevNote: '' });
    const rekey = JSON.parse((await cli('registry', 'rekey', p, '--show-keys', '--json', ...common)).stdout);
    expect(typeof rekey.key).toBe('string');
    expect(JSON.parse((await cli('registry', 'ranges', '--json', ...common)).stdout)).toMatchObject({ to: expect.any(String) });
    expect(JSON.parse((await cli('registry', 'requirements', '128', '--json', ...common)).stdout)).toEqual({ bits: 128, trans: 0 });
    const again = await cli('registry', 'add', p, '--json', ...common);
    expect(JSON.parse(again.stdout).state).toBe('registered');
    const bad = await cli('registry', 'add', '21', ...common);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/21 is not a safe prime \(checked locally\); it was not sent/);
    expect(fake.registry.added.filter((x) => x === BigInt(p))).toHaveLength(1);
  });

  it('text output: --show-keys prints the keys the registry holds, a second add says it is already registered, the registry fields are explained', async () => {
    const state = tmp();
    const keystore = path.join(tmp(), 'keys.json');
    const common = ['--base-url', fake.url.href, '--state-dir', state, '--no-limits', '--keystore', keystore];
    const p = JSON.parse((await cli('search', '--bits', '128', '--count', '1', '--seed', '8')).stdout).prime as string;
    const keyLine = (stdout: string): string =>
      stdout
        .split('\n')
        .find((l) => l.startsWith('key '))!
        .slice('key '.length);
    const add = await cli('registry', 'add', p, '--show-keys', ...common);
    expect(add.status, add.stderr).toBe(0);
    const lines = add.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${p}: registered`);
    expect(lines.slice(1).map((l) => l.split(' ').slice(0, -1).join(' '))).toEqual(['key', 'subkey', 'TOTP key', 'TOTP reference time']);
    // The key printed is the one the registry holds for p, and the TOTP key the registry's.
    expect(b85decode(keyLine(add.stdout))).toEqual(fake.registry.keyOf(BigInt(p)));
    expect(b85decode(lines.find((l) => l.startsWith('TOTP key '))!.slice('TOTP key '.length))).toEqual(fake.registry.totpKey);
    // Without --show-keys: no key in the text.
    const again = await cli('registry', 'add', p, ...common);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe(`${p}: already registered (keys in the keystore)\n`);
    const againJson = JSON.parse((await cli('registry', 'add', p, '--json', ...common)).stdout);
    expect(againJson).toMatchObject({ prime: p, state: 'registered', alreadyRegistered: true, hasKey: true });
    expect(againJson.key).toBeUndefined();
    const rekey = await cli('registry', 'rekey', p, '--show-keys', ...common);
    expect(rekey.status, rekey.stderr).toBe(0);
    expect(rekey.stdout.split('\n')[0]).toBe(`${p}: rekeyed`);
    expect(b85decode(keyLine(rekey.stdout))).toEqual(fake.registry.keyOf(BigInt(p)));
    expect((await cli('registry', 'rekey', p, ...common)).stdout).toBe(`${p}: rekeyed\n`);
    expect(fake.registry.added.filter((x) => x === BigInt(p))).toHaveLength(1);
    // trans, old mbits and old mtrans: said to be the registry's own fields, by their names in its answers.
    const legend =
      /^\(trans is the registry's transitional value, as its spec names it; old mbits and old mtrans are its fields old_mbits and old_mtrans, printed as sent: the spec does not say what they measure\)$/m;
    const get = await cli('registry', 'get', p, ...common);
    expect(get.stdout).toMatch(/^bits 128, trans 0, registered \d{4}-.*\nold mbits 128, old mtrans 0\n/);
    expect(get.stdout).toMatch(legend);
    const req = await cli('registry', 'requirements', '128', ...common);
    expect(req.stdout.split('\n')[0]).toBe('bits 128 (the least bit length the registry takes for 128-bit primes), trans 0');
    expect(req.stdout).toMatch(legend);
  });

  it('read-only commands work on a state dir this user cannot write, which they leave as it was; add is still refused', async () => {
    const state = tmp();
    const common = ['--base-url', fake.url.href, '--state-dir', state];
    const p = JSON.parse((await cli('search', '--bits', '128', '--count', '1', '--seed', '9')).stdout).prime as string;
    expect((await cli('registry', 'add', p, ...common)).status).toBe(0);
    const before = readdirSync(state).map((f) => [f, statSync(path.join(state, f)).mtimeMs]);
    chmodSync(state, 0o555);
    // root writes anywhere: the commands then run as another user, for whom the folder is read-only.
    const asOther = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const run = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [...CLI_ENTRY, ...args], { stdio: 'pipe', ...asOther, env: { ...process.env, HOME: tmp() } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('exit', (status) => resolve({ status, stdout, stderr }));
      });
    try {
      const get = await run('registry', 'get', p, '--json', ...common);
      expect(get.status, get.stderr).toBe(0);
      expect(JSON.parse(get.stdout)).toMatchObject({ bits: 128 });
      for (const args of [['ranges'], ['requirements', '128'], ['totp']]) {
        const r = await run('registry', ...args, ...common);
        expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        expect(r.stderr).toBe('');
      }
      // A command that keeps keys needs to write: one line, exit 2, nothing sent.
      const other = JSON.parse((await cli('search', '--bits', '128', '--count', '1', '--seed', '10')).stdout).prime as string;
      const add = await run('registry', 'add', other, ...common);
      expect(add.status).toBe(2);
      expect(add.stderr).toMatch(/^powprime: cannot use .*: permission denied\n$/);
      expect(fake.registry.added).not.toContain(BigInt(other));
      expect(readdirSync(state).map((f) => [f, statSync(path.join(state, f)).mtimeMs])).toEqual(before);
    } finally {
      chmodSync(state, 0o700);
    }
  });

  it('--keystore puts the keys where the user says, not in the state folder', async () => {
    const state = tmp();
    const keystore = path.join(tmp(), 'my-keys.json');
    const found = await cli('search', '--bits', '128', '--count', '1', '--seed', '5');
    const p = JSON.parse(found.stdout).prime as string;
    const add = await cli('registry', 'add', p, '--json', '--base-url', fake.url.href, '--state-dir', state, '--no-limits', '--keystore', keystore);
    expect(add.status, add.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(keystore, 'utf8')) as { prime: string; key?: string }[];
    expect(stored.find((e) => e.prime === p)?.key).toEqual(expect.any(String));
    expect(readdirSync(state).filter((f) => f.startsWith('keys'))).toEqual([]);
    // The same prime from another keystore: the registry holds it, this keystore got no keys, exit 1.
    const other = await cli('registry', 'add', p, '--json', '--base-url', fake.url.href, '--state-dir', state, '--no-limits', '--keystore', path.join(tmp(), 'other.json'));
    expect(other.status, other.stderr).toBe(1);
    expect(JSON.parse(other.stdout)).toMatchObject({ prime: p, state: 'registered-elsewhere' });
  });

  it('add of a prime another live process is registering says which process, and sends nothing', async () => {
    const state = tmp();
    const keystore = path.join(tmp(), 'keys.json');
    const p = JSON.parse((await cli('search', '--bits', '128', '--count', '1', '--seed', '6')).stdout).prime as string;
    // This test's own process stands for the other one: alive, on this host, not the CLI.
    const k = new Keystore(keystore);
    k.put({ prime: p, bits: 128, state: 'sending', at: Date.now(), owner: { pid: process.pid, host: hostname() } });
    k.close();
    const add = await cli('registry', 'add', p, '--base-url', fake.url.href, '--state-dir', state, '--no-limits', '--keystore', keystore);
    expect(add.status).toBe(1);
    expect(add.stdout.trim()).toBe(`${p}: sending (being registered by process ${process.pid} on ${hostname()}; its keys land in this keystore)`);
    expect(fake.registry.added).not.toContain(BigInt(p));
  });

  it('add of a prime an interrupted run left as sending settles it first, then registers it', async () => {
    const state = tmp();
    const keystore = path.join(tmp(), 'keys.json');
    const p = JSON.parse((await cli('search', '--bits', '128', '--count', '1', '--seed', '7')).stdout).prime as string;
    // The run that left it: a process that has ended (its pid not reused this soon).
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const k = new Keystore(keystore);
    k.put({ prime: p, bits: 128, state: 'sending', at: Date.now(), owner: { pid: dead, host: hostname() } });
    k.close();
    const add = await cli('registry', 'add', p, '--json', '--base-url', fake.url.href, '--state-dir', state, '--no-limits', '--keystore', keystore);
    expect(add.status, add.stderr).toBe(0);
    expect(JSON.parse(add.stdout)).toMatchObject({ prime: p, state: 'registered', hasKey: true });
    expect(fake.registry.added.filter((x) => x === BigInt(p))).toHaveLength(1);
  });

  it("every registry and ads command's JSON follows the JSON convention of docs/cli.md (ads' UNIX timestamps as ISO 8601)", async () => {
    // Services of its own, without limits: the calls here spend no other test's budget.
    const own = await startFakeServices({ unlimited: true });
    const common = ['--base-url', own.url.href, '--state-dir', tmp(), '--no-limits'];
    const p = JSON.parse((await cli('search', '--bits', '128', '--count', '1', '--seed', '6')).stdout).prime as string;
    const outputs: [string, string][] = [];
    for (const args of [
      ['registry', 'add', p],
      ['registry', 'get', p],
      ['registry', 'note', p, 'hi'],
      ['registry', 'rekey', p],
      ['registry', 'ranges'],
      ['registry', 'requirements', '128'],
      ['registry', 'totp'],
      ['ads', 'random'],
      ['ads', 'pick'],
      ['ads', 'all'],
      ['ads', 'image', 'bob.png', '--out', path.join(tmp(), 'bob.png')],
      // After an image is shown: an empty leaderboard exits 1 (found nothing).
      ['ads', 'leaderboard'],
    ]) {
      const r = await cli(...args, '--json', ...common);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      outputs.push([args.join(' '), r.stdout]);
    }
    await own.close();
    for (const [what, stdout] of outputs) {
      for (const v of jsonValues(stdout)) expect(jsonConventionErrors(v, { mapKeysAt: what === 'ads leaderboard' ? ['$'] : [] }), what).toEqual([]);
    }
    // The fake ad service's first ad carries 1700000000.5 UNIX seconds: that instant, to the millisecond.
    const all = JSON.parse(outputs.find(([w]) => w === 'ads all')![1]) as { author: string; timestamp: string }[];
    expect(all.find((a) => a.author === 'Ada')!.timestamp).toBe('2023-11-14T22:13:20.500Z');
  });

  it('ads random, all, pick, leaderboard, image', async () => {
    const common = ['--base-url', fake.url.href, '--state-dir', tmp()];
    const r = JSON.parse((await cli('ads', 'random', '--json', ...common)).stdout);
    expect(r.contactUrl).toContain('/ads/contact?for=');
    expect(JSON.parse((await cli('ads', 'all', '--json', ...common)).stdout)).toHaveLength(3);
    expect(JSON.parse((await cli('ads', 'pick', '--json', ...common)).stdout).author).toMatch(/Ada|Bob|Eve/);
    const out = path.join(tmp(), 'img.png');
    const img = await cli('ads', 'image', 'bob.png', '--out', out, ...common);
    expect(img.status, img.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('PNG:bob.png');
    const board = JSON.parse((await cli('ads', 'leaderboard', '--json', ...common)).stdout) as Record<string, number>;
    expect(board).toBeTypeOf('object');
    // A line a site, most rendered first; an empty board prints nothing, not an empty line.
    const lines = Object.entries(board)
      .sort((x, y) => y[1] - x[1])
      .map(([site, count]) => `${count}\t${site}\n`)
      .join('');
    expect((await cli('ads', 'leaderboard', ...common)).stdout).toBe(lines);
  });

  it('search --register: a kill -9 in the middle, then a rerun: nothing registered twice, no key lost unreported', async () => {
    const dir = tmp();
    const out = path.join(dir, 'primes.jsonl');
    const args = ['search', '--bits', '1024', '--count', '8', '--seed', '99', '--out', out, '--register', '--base-url', fake.url.href, '--state-dir', path.join(dir, 'reg'), '--no-limits', '--json'];
    const child = spawn(process.execPath, [...CLI_ENTRY, ...args], { stdio: 'pipe' });
    let linesAtKill = -1;
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        try {
          const n = readFileSync(out, 'utf8').trim().split('\n').length;
          if (n >= 3) {
            clearInterval(t);
            child.kill('SIGKILL');
            linesAtKill = n;
            resolve();
          }
        } catch {
          /* not yet */
        }
      }, 20);
      child.on('exit', () => {
        clearInterval(t);
        resolve();
      });
    });
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.on('exit', r)));
    expect(linesAtKill).toBeGreaterThanOrEqual(3);
    expect(linesAtKill).toBeLessThan(8); // killed in the middle
    const rerun = await cli(...args);
    expect(rerun.status, rerun.stderr).toBe(0);
    const summary = JSON.parse(rerun.stdout);
    expect(summary.total).toBe(8);
    const primes = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => BigInt(JSON.parse(l).prime));
    expect(primes).toHaveLength(8);
    const added = fake.registry.added.filter((p) => primes.includes(p));
    expect(new Set(added).size).toBe(added.length); // none twice
    const ledger = JSON.parse(readFileSync(hostStateFile(path.join(dir, 'reg'), 'keys.json', hostTag(fake.url)), 'utf8')) as { prime: string; state: string }[];
    const states = new Map(ledger.map((e) => [e.prime, e.state]));
    for (const p of primes) expect(['registered', 'key-lost']).toContain(states.get(p.toString()));
    const lost = [...states.values()].filter((s) => s === 'key-lost').length;
    if (lost) expect(rerun.stderr).toMatch(/KEY LOST/);
    expect(added.length).toBe(8);
  });
});
