import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { b85decode } from '../src/clients/registry/base85.ts';
import { ManualClock } from '../src/clients/clock.ts';
import { Keystore, redact } from '../src/clients/registry/keystore.ts';
import { encryptKey } from '../src/clients/registry/key-crypto.ts';
import { Registrar } from '../src/clients/registry/registrar.ts';
import { PrimeRegistryClient } from '../src/clients/registry/client.ts';
import { JsonError, NotExistError, NotPrimeError, NotSafePrimeError, RegisteredError, RequirementsError, TotpError } from '../src/clients/registry/errors.ts';
import { startFakeServices } from '../src/fake-services/index.ts';
import { startServer } from '../src/fake-services/http-server.ts';
import { FakeRegistryService } from '../src/fake-services/registry-service.ts';
import { ServiceNotFoundError } from '../src/clients/errors.ts';
import type { FakeRegistryOptions } from '../src/fake-services/registry-service.ts';
import { closePool } from '../src/pool/pool.ts';
import { searchSafePrimes } from '../src/prime/search.ts';
import { tempDir } from './helpers/tmp.ts';

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});
const tmp = (): string => tempDir('powprime-reg-');

async function setup(registry: FakeRegistryOptions = {}, clientOpts: Partial<ConstructorParameters<typeof PrimeRegistryClient>[0]> = {}) {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 7));
  const fake = await startFakeServices({ clock, registry });
  running.push(fake);
  const dir = tmp();
  const client = new PrimeRegistryClient({ baseUrl: fake.url, stateDir: dir, clock, ...clientOpts });
  const keystore = new Keystore(path.join(dir, 'keys.json'));
  return { clock, fake, client, keystore, registrar: new Registrar(client, keystore), dir };
}

// Safe primes for the tests come from the seeded search; the fake checks them with node:crypto.
async function safePrimes(bits: number, count: number): Promise<bigint[]> {
  const out: bigint[] = [];
  for await (const r of searchSafePrimes({ bits, count, seed: 77n, threads: 1 })) out.push(r.prime);
  await closePool();
  return out;
}

describe('PrimeRegistryClient against the local server', () => {
  it('every route, with the TOTP computed per request', async () => {
    const { client, fake } = await setup();
    const [a, b] = await safePrimes(128, 2);
    const info = await client.totpInfo();
    expect(info.key).toEqual(fake.registry.totpKey);
    expect(await client.requirements(128)).toEqual({ bits: 128, trans: 0 });
    expect(await client.requirements()).toEqual({ bits: 16, trans: 0 });
    await expect(client.requirements(0)).rejects.toThrow(expect.objectContaining({ name: 'RangeError', argument: 'bits' }));
    const m = await client.add(a!);
    expect(b85decode(m.subkey)).toHaveLength(64);
    await client.add(b!);
    const rec = await client.prime(a! < b! ? a! : b!);
    expect(rec).toMatchObject({ bits: 128, next: (a! < b! ? b! : a!).toString() });
    expect(await client.prime(12345678901n)).toBeNull();
    expect(await client.ranges()).toEqual({ from: a! < b! ? a! : b!, to: a! < b! ? b! : a! });
  });

  it('each error ident becomes its typed error with the server message', async () => {
    const { client } = await setup();
    const [p] = await safePrimes(128, 1);
    await client.add(p!);
    const registered = await client.add(p!).catch((e: unknown) => e);
    expect(registered).toBeInstanceOf(RegisteredError);
    expect((registered as RegisteredError).serviceMessage).toBe('prime already registered');
    await expect(client.add(p! + 2n)).rejects.toBeInstanceOf(NotPrimeError);
    await expect(client.note(p!, 'not a key', 'x')).rejects.toBeInstanceOf(JsonError);
    await expect(client.note(p! + 12n, 'abcde', 'x')).rejects.toBeInstanceOf(NotExistError);
    const strict = await setup({ extraBits: 1 });
    await expect(strict.client.add(p!)).rejects.toBeInstanceOf(RequirementsError);
    const skewed = await setup({}, { totpReading: 'server-clock' });
    const totp = await skewed.client.requirements().catch((e: unknown) => e);
    expect(totp).toBeInstanceOf(TotpError);
    expect((totp as TotpError).ident).toBe('totp');
  });
});

describe('PrimeRegistryClient: the TOTP where the spec puts it', () => {
  it('GET /ranges and /prime take it in the query string: in the body, the local registry refuses it', async () => {
    const { client } = await setup({}, { totpOnGet: 'body' });
    await expect(client.ranges()).rejects.toBeInstanceOf(TotpError);
    const { client: right } = await setup();
    expect(await right.ranges()).toEqual({ from: 0n, to: 0n });
  });
});

describe('PrimeRegistryClient: answers the spec leaves open', () => {
  /** A server that answers /api/totp properly and every other path with `other`. */
  async function serving(other: { status: number; body: unknown; contentType?: string }) {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 7));
    let calls = 0;
    const srv = await startServer(
      [
        (req) => {
          if (req.url.pathname === '/api/totp') return { status: 200, body: { key: '0'.repeat(40), ts: 0 } };
          calls++;
          return typeof other.body === 'string'
            ? { status: other.status, headers: { 'content-type': other.contentType ?? 'text/html' }, body: Buffer.from(other.body) }
            : { status: other.status, body: other.body };
        },
      ],
      clock,
    );
    running.push(srv);
    const client = new PrimeRegistryClient({ baseUrl: srv.url, stateDir: tmp(), clock, limits: 'off', backoffMs: 1 });
    return { client, calls: () => calls };
  }

  it("absent prime: the registry's own 404 (the spec's {error, ident}) or ident notexist is null; any other 404 (a wrong URL, a proxy, a gateway) is thrown", async () => {
    expect(await (await serving({ status: 404, body: { error: 'no such prime', ident: 'noprime' } })).client.prime(23n)).toBeNull();
    expect(await (await serving({ status: 400, body: { error: 'no such prime', ident: 'notexist' } })).client.prime(23n)).toBeNull();
    await expect((await serving({ status: 404, body: '<html>Not Found</html>' })).client.prime(23n)).rejects.toBeInstanceOf(ServiceNotFoundError);
    // A gateway's JSON 404 carries no ident: not the registry speaking.
    await expect((await serving({ status: 404, body: { error: 'Not Found' } })).client.prime(23n)).rejects.toThrow(/HTTP 404: Not Found/);
  });

  it('a known ident at a 5xx is its typed error, not retried; a 5xx without one is retried', async () => {
    const typed = await serving({ status: 500, body: { error: 'not a prime', ident: 'notprime' } });
    const err = await typed.client.add(23n).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotPrimeError);
    expect((err as NotPrimeError).serviceMessage).toBe('not a prime');
    expect(typed.calls()).toBe(1);
    const plain = await serving({ status: 503, body: { error: 'maintenance' } });
    await expect(plain.client.ranges()).rejects.toMatchObject({ code: 'ERR_SERVER', serviceMessage: 'maintenance' });
    expect(plain.calls()).toBe(3);
  });

  it('rekey carries the TOTP in the body by default, in the query string with rekeyTotpIn: query', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 7));
    const seen: { search: string; body: Record<string, unknown> }[] = [];
    const srv = await startServer(
      [
        (req) => {
          if (req.url.pathname === '/api/totp') return { status: 200, body: { key: '0'.repeat(40), ts: 0 } };
          seen.push({ search: req.url.search, body: JSON.parse(req.body) as Record<string, unknown> });
          return { status: 200, body: { key: 'k', subkey: 's', totp_key: 't', totp_ts: 0 } };
        },
      ],
      clock,
    );
    running.push(srv);
    for (const rekeyTotpIn of [undefined, 'query'] as const) {
      const client = new PrimeRegistryClient({ baseUrl: srv.url, stateDir: tmp(), clock, limits: 'off', ...(rekeyTotpIn ? { rekeyTotpIn } : {}) });
      await client.rekey(23n, 'old-key');
    }
    expect(seen[0]!.search).toBe('');
    expect(seen[0]!.body).toMatchObject({ prime: '23', key: 'old-key', totp: expect.stringMatching(/^\d{6}$/) });
    expect(seen[1]!.search).toMatch(/^\?totp=\d{6}$/);
    expect(seen[1]!.body).toEqual({ prime: '23', key: 'old-key' });
  });

  it('options and primes are checked where given', () => {
    const base = { baseUrl: 'http://127.0.0.1:9', stateDir: tmp() };
    expect(() => new PrimeRegistryClient({ ...base, primeEncoding: 'hexx' as never })).toThrow(expect.objectContaining({ argument: 'primeEncoding' }));
    expect(() => new PrimeRegistryClient({ ...base, totpOnGet: 'header' as never })).toThrow(expect.objectContaining({ argument: 'totpOnGet' }));
    expect(() => new PrimeRegistryClient({ ...base, totpReading: 'now' as never })).toThrow(expect.objectContaining({ argument: 'totpReading' }));
    expect(() => new PrimeRegistryClient({ ...base, totpDigits: 0 })).toThrow(expect.objectContaining({ argument: 'totpDigits' }));
    expect(() => new PrimeRegistryClient({ ...base, rekeyTotpIn: 'header' as never })).toThrow(expect.objectContaining({ argument: 'rekeyTotpIn' }));
    const client = new PrimeRegistryClient(base);
    expect(() => client.encodePrime('abc' as never)).toThrow(TypeError);
    expect(() => client.encodePrime(1n)).toThrow(RangeError);
  });
});

describe('Registrar: ledger and keys', () => {
  it('registers once, keeps the decrypted key (0600 file), and never sends a non-safe prime', async () => {
    const { registrar, fake, keystore } = await setup();
    const [p] = await safePrimes(128, 1);
    const e = await registrar.register(p!);
    expect(e.state).toBe('registered');
    expect(b85decode(e.key!)).toEqual(fake.registry.keyOf(p!));
    expect(statSync(keystore.file).mode & 0o777).toBe(0o600);
    expect((await registrar.register(p!)).state).toBe('registered');
    expect(fake.registry.added).toHaveLength(1);
    await expect(registrar.register(p! + 2n)).rejects.toBeInstanceOf(NotSafePrimeError);
    // A prime that is not safe (29 = 2·14 + 1) is refused the same way: never sent.
    await expect(registrar.register(29n)).rejects.toThrow(/29 is not a safe prime/);
    expect(fake.requests.filter((r) => r === 'POST /api/add')).toHaveLength(1);
  });

  it('note and rekey re-encrypt the stored key for the current window, hours later', async () => {
    const { registrar, fake, clock } = await setup();
    const [p] = await safePrimes(128, 1);
    await registrar.register(p!);
    clock.advance(5 * 3600_000);
    expect(await registrar.note(p!, 'first')).toEqual({ success: 'note replaced', prevNote: '' });
    expect((await registrar.note(p!, 'second')).prevNote).toBe('first');
    const after = await registrar.rekey(p!);
    expect(b85decode(after.key!)).toEqual(fake.registry.keyOf(p!));
    expect((await registrar.note(p!, 'third')).prevNote).toBe('second');
  });

  it('an answer journaled before a crash is finished by the next run, hours later: registered with its key, never key-lost', async () => {
    const { client, keystore, fake, clock } = await setup();
    const [p, q] = await safePrimes(128, 2);
    // p: /add answered and journaled, then the run died before the decrypted key was stored.
    const material = await client.add(p!);
    keystore.put({ prime: p!.toString(), bits: 128, state: 'sending', at: clock.now(), received: { material, at: clock.now() } });
    // q: registered, then /rekey answered and journaled, then the run died (the old key is void).
    const first = new Registrar(client, keystore);
    await first.register(q!);
    const rekeyed = await client.rekey(q!, encryptKey(b85decode(keystore.get(q!)!.key!), b85decode(keystore.get(q!)!.subkey!), { now: clock.now() / 1000 }));
    keystore.put({ ...keystore.get(q!)!, received: { material: rekeyed, at: clock.now() } });
    expect(redact(keystore.get(p!)!)).not.toHaveProperty('received');
    clock.advance(3 * 3600_000);
    const again = new Registrar(client, new Keystore(keystore.file));
    expect(await again.recover()).toEqual([]);
    for (const x of [p!, q!]) {
      const e = again.keystore.get(x)!;
      expect(e.state).toBe('registered');
      expect(e.received).toBeUndefined();
      expect(b85decode(e.key!)).toEqual(fake.registry.keyOf(x));
    }
    expect(fake.registry.added).toEqual([p, q]);
  });

  it('a rekey whose answer was lost: settled by the next recover(), key-lost when the registry did re-key, rekeyed when it did not', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 7));
    const registry = new FakeRegistryService();
    // What POST /rekey does: 'lose' re-keys and then answers 502; 'drop' answers 502 without re-keying.
    let mode: 'pass' | 'lose' | 'drop' = 'pass';
    const srv = await startServer(
      [
        async (req, c) => {
          if (req.url.pathname !== '/api/rekey' || mode === 'pass') return null;
          if (mode === 'lose') await registry.handler(req, c);
          return { status: 502, body: { error: 'bad gateway' } };
        },
        registry.handler,
      ],
      clock,
    );
    running.push(srv);
    const dir = tmp();
    const client = new PrimeRegistryClient({ baseUrl: srv.url, stateDir: dir, clock, limits: 'off', backoffMs: 1 });
    const keystore = new Keystore(path.join(dir, 'keys.json'));
    const [p, q] = await safePrimes(128, 2);
    const reg = new Registrar(client, keystore);
    await reg.register(p!);
    await reg.register(q!);
    mode = 'lose';
    await expect(reg.rekey(p!)).rejects.toMatchObject({ code: 'ERR_SERVER' });
    mode = 'drop';
    await expect(reg.rekey(q!)).rejects.toMatchObject({ code: 'ERR_SERVER' });
    for (const x of [p!, q!]) expect(keystore.get(x)).toMatchObject({ state: 'registered', rekeying: expect.any(Number) });
    mode = 'pass';
    clock.advance(3600_000);
    const next = new Registrar(client, new Keystore(keystore.file));
    const lost = await next.recover();
    expect(lost.map((e) => e.prime)).toEqual([p!.toString()]);
    expect(lost[0]!.message).toMatch(/re-keyed/);
    // The old key stays beside the verdict: a refusal for another reason would leave it usable.
    expect(next.keystore.get(p!)).toMatchObject({ state: 'key-lost', key: expect.any(String) });
    expect(next.keystore.get(p!)).not.toHaveProperty('rekeying');
    // A second recover (another process's, say) finds nothing left to settle.
    expect(await new Registrar(client, new Keystore(keystore.file)).recover()).toEqual([]);
    const settled = next.keystore.get(q!)!;
    expect(settled).toMatchObject({ state: 'registered' });
    expect(settled).not.toHaveProperty('rekeying');
    expect(b85decode(settled.key!)).toEqual(registry.keyOf(q!));
  });

  it('after a wait for a ban, the TOTP and the key are made for the moment the request goes out', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 7));
    const registry = new FakeRegistryService();
    let banned = false;
    const srv = await startServer(
      [
        (req) => {
          if (req.url.pathname !== '/api/ranges' || banned) return null;
          banned = true;
          return { status: 429, headers: { 'retry-after': '1000' }, body: { error: 'slow down' } };
        },
        registry.handler,
      ],
      clock,
    );
    running.push(srv);
    const dir = tmp();
    const client = new PrimeRegistryClient({ baseUrl: srv.url, stateDir: dir, clock, attempts: 1 });
    const reg = new Registrar(client, new Keystore(path.join(dir, 'keys.json')));
    const [p] = await safePrimes(128, 1);
    await reg.register(p!);
    await expect(client.ranges()).rejects.toMatchObject({ code: 'ERR_RATE_LIMITED' });
    // The note waits 1000 s for the ban: four 256-second windows later than when it was asked for.
    const before = clock.now();
    expect(await reg.note(p!, 'after the ban')).toEqual({ success: 'note replaced', prevNote: '' });
    expect(clock.now() - before).toBeGreaterThanOrEqual(1_000_000);
  });

  it('a rekey the registry refuses leaves the stored key and no mark', async () => {
    const { registrar, keystore, fake } = await setup();
    const [p] = await safePrimes(128, 1);
    await registrar.register(p!);
    const stored = keystore.get(p!)!.key;
    // Another holder's rekey voids ours: the registry refuses the stored key.
    fake.registry.replaceKey(p!);
    await expect(registrar.rekey(p!)).rejects.toBeInstanceOf(JsonError);
    expect(keystore.get(p!)).toMatchObject({ state: 'registered', key: stored });
    expect(keystore.get(p!)).not.toHaveProperty('rekeying');
  });

  it('a crash between the reply and the keystore write is reported as key-lost; an unsent one is retried', async () => {
    const { client, keystore, fake } = await setup();
    const [p, q] = await safePrimes(128, 2);
    // p: the registry took it but the run died before storing the key.
    await client.add(p!);
    keystore.put({ prime: p!.toString(), bits: 128, state: 'sending', at: 0 });
    // q: the run died before the registry answered (it never got it).
    keystore.put({ prime: q!.toString(), bits: 128, state: 'sending', at: 0 });
    const again = new Registrar(client, new Keystore(keystore.file));
    const lost = await again.recover();
    expect(lost.map((e) => e.prime)).toEqual([p!.toString()]);
    expect(again.keystore.get(p!)!.state).toBe('key-lost');
    expect((await again.register(q!)).state).toBe('registered');
    expect((await again.register(p!)).state).toBe('key-lost'); // never sent twice
    expect(fake.registry.added).toEqual([p, q]);
  });
});
