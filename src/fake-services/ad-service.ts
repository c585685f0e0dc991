/**
 * The ad service per its spec: random ad weighted by bias, the index, the
 * leaderboard, images and the contact page, with its rate limits (429 and a
 * ban: the spec does not show the response, so this server uses the question
 * service's). Rendered ads are counted per Referer host of image requests
 * (not shown in the spec). Contact tokens rotate on every index read.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clients/clock.ts';
import type { FakeHandler } from './http-server.ts';
import { HOUR, MINUTE, ServerLimits, type ServerLimitTable } from './limits.ts';

// The spec's limits, spelled out here apart from the client's table.
const SERVER_LIMITS: ServerLimitTable = {
  random: [
    { limit: 2, periodMs: 1000 },
    { limit: 24, periodMs: MINUTE },
    { limit: 160, periodMs: HOUR },
  ],
  all: [
    { limit: 1, periodMs: 1000 },
    { limit: 1, periodMs: MINUTE },
    { limit: 10, periodMs: HOUR },
  ],
  leaderboard: [
    { limit: 1, periodMs: 1000 },
    { limit: 1, periodMs: MINUTE },
    { limit: 10, periodMs: HOUR },
  ],
};

export interface FakeAd {
  alt: string;
  author: string;
  bias: number;
  contact: string;
  filename: string;
  license: string;
  timestamp: number;
  bg?: string;
  fg?: string;
  to?: string;
}

export class FakeAdService {
  readonly limits: ServerLimits;

  constructor(opts: { unlimited?: boolean; retryAfter?: boolean } = {}) {
    this.limits = new ServerLimits(opts.unlimited ? {} : SERVER_LIMITS, 50 * MINUTE, opts.retryAfter ?? false);
  }
  readonly ads: FakeAd[] = [
    { alt: 'Primes for all', author: 'Ada', bias: 1, contact: 'tok-a', filename: 'ada.png', license: 'CC-BY-4.0', timestamp: 1700000000.5, bg: '#112233', fg: '#fff' },
    { alt: 'Hashes daily', author: 'Bob', bias: 3, contact: 'tok-b', filename: 'bob.png', license: 'CC0-1.0', timestamp: 1710000000, to: 'https://bob.example/' },
    { alt: 'Odd colours', author: 'Eve', bias: 6, contact: 'tok-e', filename: 'eve.png', license: 'MIT', timestamp: 1720000000, bg: 'red;position:fixed' },
  ];
  private readonly leaderboard = new Map<string, number>();

  readonly handler: FakeHandler = (req, clock: Clock) => {
    const p = req.url.pathname;
    const limited = (route: string) => this.limits.check(route, req.address, clock);
    if (req.method === 'GET' && p === '/api/random') {
      const refused = limited('random');
      if (refused) return refused;
      const total = this.ads.reduce((s, a) => s + a.bias, 0);
      let r = Math.random() * total;
      const ad = this.ads.find((a) => (r -= a.bias) < 0) ?? this.ads[0]!;
      return { status: 200, body: ad };
    }
    if (req.method === 'GET' && p === '/api/all') {
      const refused = limited('all');
      if (refused) return refused;
      for (const a of this.ads) a.contact = `tok-${randomBytes(4).toString('hex')}`;
      return { status: 200, headers: { 'cache-control': 'max-age=300' }, body: this.ads };
    }
    if (req.method === 'GET' && p === '/api/leaderboard') {
      const refused = limited('leaderboard');
      if (refused) return refused;
      return { status: 200, headers: { 'cache-control': 'max-age=300' }, body: Object.fromEntries(this.leaderboard) };
    }
    let m: RegExpMatchArray | null;
    if (req.method === 'GET' && (m = p.match(/^\/ads\/img\/([^/]+)$/))) {
      const name = decodeURIComponent(m[1]!);
      if (!this.ads.some((a) => a.filename === name)) return { status: 404, body: { error: 'no such image' } };
      const site = req.headers.referer ? new URL(String(req.headers.referer)).host : 'direct';
      this.leaderboard.set(site, (this.leaderboard.get(site) ?? 0) + 1);
      return { status: 200, headers: { 'content-type': 'image/png' }, body: Buffer.from(`PNG:${name}`) };
    }
    if (req.method === 'GET' && p === '/ads/contact') {
      const token = req.url.searchParams.get('for');
      const ad = this.ads.find((a) => a.contact === token);
      if (!ad) return { status: 404, body: { error: 'unknown or expired contact token' } };
      return { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(`<p>Contact ${ad.author}</p>`) };
    }
    return null;
  };
}
