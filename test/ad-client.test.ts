import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdClient } from '../src/clients/ads/client.ts';
import { HOUR, ManualClock } from '../src/clients/clock.ts';
import { ProtocolError } from '../src/clients/errors.ts';
import { startFakeServices } from '../src/fake-services/index.ts';
import { rng } from './helpers/oracles.ts';
import { tempDir } from './helpers/tmp.ts';

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});

async function setup(random?: () => number) {
  const clock = new ManualClock();
  const fake = await startFakeServices({ clock });
  running.push(fake);
  const client = new AdClient({ baseUrl: fake.url, stateDir: tempDir('powprime-ads-'), clock, ...(random ? { random } : {}) });
  return { clock, fake, client };
}

/**
 * A proxy in front of `target` that holds the first request `delayMs` before
 * passing it on: a request slowed on its way (a first connection, a busy
 * link), which the service counts later than the client sent it.
 */
async function slowFirstProxy(target: URL, delayMs: number): Promise<{ url: URL; close(): Promise<void> }> {
  let first = true;
  const server = createServer((req, res) => {
    const hold = first ? delayMs : 0;
    first = false;
    setTimeout(() => {
      const out = request(new URL(req.url!, target), { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      });
      req.pipe(out);
    }, hold);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('AdClient against the local server', () => {
  it("errors name the route as sent, under the base URL's path: a wrong shape and a body that is no JSON alike", async () => {
    let body = '{"not": "an ad"}';
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    running.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/m/x`;
    const client = new AdClient({ baseUrl: base, stateDir: tempDir('powprime-ads-'), limits: 'off', attempts: 1 });
    const shape = await client.random().catch((e: unknown) => e);
    expect(shape).toBeInstanceOf(ProtocolError);
    expect(shape).toMatchObject({ route: 'GET /m/x/api/random' });
    body = 'not json';
    const garbled = await client.random().catch((e: unknown) => e);
    expect(garbled).toBeInstanceOf(ProtocolError);
    expect(garbled).toMatchObject({ route: 'GET /m/x/api/random' });
  });

  it('a first request slowed on its way still leaves the next ones outside its window: no 429 at 2 a second', async () => {
    const fake = await startFakeServices({ retryAfter: true });
    running.push(fake);
    const proxy = await slowFirstProxy(fake.url, 400);
    running.push(proxy);
    const client = new AdClient({ baseUrl: proxy.url, stateDir: tempDir('powprime-ads-'), maxWaitMs: 5_000 });
    for (let i = 0; i < 3; i++) await client.random();
    expect(fake.ads.limits.refusals).toEqual([]);
  });

  it('a simulated hour of random ads and index reads: within every limit, zero 429s', async () => {
    const { clock, fake, client } = await setup();
    const start = clock.now();
    let randoms = 0;
    while (clock.now() - start < HOUR) {
      await client.random();
      randoms++;
      if (randoms % 10 === 0) {
        await client.all();
        await client.leaderboard();
      }
    }
    expect(fake.ads.limits.refusals).toEqual([]);
    // 160 per hour at most, stretched by 1.1: the hour fits about 145.
    expect(randoms).toBeGreaterThan(130);
    expect(randoms).toBeLessThanOrEqual(161);
  });

  it('validates required fields and keeps only colours of the form #…', async () => {
    const { client } = await setup();
    const ads = await client.all();
    expect(ads.map((a) => a.author)).toEqual(['Ada', 'Bob', 'Eve']);
    expect(ads[0]).toMatchObject({ bg: '#112233', fg: '#fff' });
    expect(ads[2]!.bg).toBeUndefined();
    expect(() => AdClient.validate('x', { alt: 'a', author: 'b', bias: 'high', contact: 'c', filename: 'f', license: 'l', timestamp: 1 })).toThrow(ProtocolError);
    expect(() => AdClient.validate('x', { author: 'b', bias: 1, contact: 'c', filename: 'f', license: 'l', timestamp: 1 })).toThrow(/'alt'/);
  });

  it('pick() uses the cached index, weighted by bias, without calling random', async () => {
    const { client, fake } = await setup(rng(9));
    const counts: Record<string, number> = {};
    for (let i = 0; i < 3000; i++) {
      const a = await client.pick();
      counts[a.author] = (counts[a.author] ?? 0) + 1;
    }
    expect(fake.requests.filter((r) => r === 'GET /api/random')).toHaveLength(0);
    expect(fake.requests.filter((r) => r === 'GET /api/all')).toHaveLength(1);
    // Biases 1 : 3 : 6.
    expect(counts.Ada! / 3000).toBeCloseTo(0.1, 1);
    expect(counts.Bob! / 3000).toBeCloseTo(0.3, 1);
    expect(counts.Eve! / 3000).toBeCloseTo(0.6, 1);
  });

  it('images are cached on disk; the contact URL is built from the current token each time', async () => {
    const { client, fake, clock } = await setup();
    const [ad] = await client.all();
    const first = await client.image(ad!);
    expect(first.content.toString()).toBe('PNG:ada.png');
    expect((await client.image(ad!)).fromCache).toBe(true);
    expect(fake.requests.filter((r) => r === 'GET /ads/img/ada.png')).toHaveLength(1);
    // Kept 30 days from when it was saved (the file's time), then fetched again.
    const saved = (clock.now() - 31 * 24 * HOUR) / 1000;
    utimesSync(first.path, saved, saved);
    expect((await client.image(ad!)).fromCache).toBe(false);
    expect(fake.requests.filter((r) => r === 'GET /ads/img/ada.png')).toHaveLength(2);
    expect(() => client.contactUrl({} as never)).toThrow(expect.objectContaining({ argument: 'ad.contact' }));
    expect(() => new AdClient({ baseUrl: fake.url, stateDir: tempDir('powprime-ads-'), imageMaxAgeMs: -1 })).toThrow(expect.objectContaining({ argument: 'imageMaxAgeMs' }));
    expect(client.imageUrl(ad!).href).toBe(new URL('/ads/img/ada.png', fake.url).href);
    const before = client.contactUrl(ad!);
    expect(before.searchParams.get('for')).toBe(ad!.contact);
    clock.advance(HOUR);
    const [fresh] = await client.all();
    expect(client.contactUrl(fresh!).href).not.toBe(before.href);
  });

  it('images of ads never shown again go once imageMaxAgeMs has passed, and temporaries a crash left after a day; swept at most hourly', async () => {
    const { client, clock } = await setup();
    const dir = client.hostFile('images');
    mkdirSync(dir, { recursive: true });
    const put = (name: string, mtimeMs: number): string => {
      const file = path.join(dir, name);
      writeFileSync(file, 'x');
      utimesSync(file, mtimeMs / 1000, mtimeMs / 1000);
      return file;
    };
    const old = put('old.png', clock.now() - 31 * 24 * HOUR);
    const recent = put('recent.png', clock.now() - 24 * HOUR);
    // A temporary's age is real time: no write lasts a day.
    const oldTemp = put('.gone.png.123.1700000000000.tmp', Date.now() - 2 * 24 * HOUR);
    const newTemp = put('.busy.png.124.1700000000001.tmp', Date.now());
    const [ada, bob, eve] = await client.all();
    await client.image(ada!);
    expect([old, recent, oldTemp, newTemp].map(existsSync)).toEqual([false, true, false, true]);
    const later = put('later.png', clock.now() - 31 * 24 * HOUR);
    await client.image(bob!);
    expect(existsSync(later)).toBe(true);
    clock.advance(HOUR);
    await client.image(eve!);
    expect(existsSync(later)).toBe(false);
    expect(existsSync(path.join(dir, 'ada.png'))).toBe(true);
  });
});
