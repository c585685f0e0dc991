/**
 * Client for the ad service: random ad, the index, the leaderboard, images (cached on disk), and
 * the contact link — built at the moment of use from the token and never cached, since the spec
 * says its URL can change. `pick()` chooses from the cached index by `bias`, so showing an ad
 * does not spend the `random` budget.
 */
import { DAY, MINUTE } from '../clock.ts';
import type { Bytes } from '../bytes.ts';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import { readJsonState } from '../http/state-file.ts';
import { ProtocolError } from '../errors.ts';
import { argumentError, checkFunction, show } from '../../validate.ts';
import { optionNames } from '../../option-checks.ts';
import { fillPath } from '../http/routes.ts';
import { AD_ROUTES, type AdRoute } from './routes.ts';
import { sanitizeFilename } from '../http/file-names.ts';
import { ServiceClient } from '../http/service-client.ts';
import { optionalNumber, type ClientOptionNames, type ServiceClientOptions } from '../http/client-options.ts';
import { checkArray } from '../http/shapes.ts';
import { validateAd, type Ad } from './ad.ts';
import { FolderSweep } from '../http/folder-sweep.ts';
import { makeFolderSync } from '../../fs/make-folder.ts';

export interface AdClientOptions extends ServiceClientOptions {
  /** How long the index and leaderboard are reused (the spec asks clients to cache; default 10 minutes). */
  indexMaxAgeMs?: number;
  /** How long a downloaded image is kept before it is fetched again (the spec does not say; default 30 days). */
  imageMaxAgeMs?: number;
  /** Random numbers in [0, 1) for pick() (default Math.random). */
  random?: () => number;
}

/** AdClient's options beside every client's: any other key is refused. */
export const AD_CLIENT_OPTIONS: ClientOptionNames = {
  client: 'AdClient',
  own: optionNames<Omit<AdClientOptions, keyof ServiceClientOptions>>()(['indexMaxAgeMs', 'imageMaxAgeMs', 'random']),
};

export class AdClient extends ServiceClient<AdRoute> {
  private readonly indexMaxAgeMs: number;
  private readonly imageMaxAgeMs: number;
  private imagesSweep: FolderSweep | undefined;
  private readonly rand: () => number;

  constructor(opts: AdClientOptions) {
    super('ads', AD_ROUTES, opts, AD_CLIENT_OPTIONS);
    for (const name of ['indexMaxAgeMs', 'imageMaxAgeMs'] as const) optionalNumber(opts, name, (n) => n >= 0, 'a number of milliseconds ≥ 0');
    this.indexMaxAgeMs = opts.indexMaxAgeMs ?? 10 * MINUTE;
    this.imageMaxAgeMs = opts.imageMaxAgeMs ?? 30 * DAY;
    this.rand = checkFunction<() => number>('random', opts.random) ?? Math.random;
  }

  /** An ad with its required fields checked; colours not of the form #… are dropped (ad.ts). */
  static validate(route: string, v: unknown): Ad {
    return validateAd(route, v);
  }

  async random(): Promise<Ad> {
    const route = this.label('random');
    const res = await this.call({ route: 'random' });
    return validateAd(route, this.json(res, route));
  }

  /** `valid` checks a saved value as the route's answer is checked (throws when it is not one). */
  private stored<T>(name: string, fetcher: () => Promise<T>, valid: (value: unknown) => void): Promise<T> {
    // Per host: another server's index is never shown as this one's.
    const file = this.hostFile(`${name}.json`);
    const shape = (x: unknown): string | undefined => {
      const o = x as { at?: unknown; value?: unknown } | null;
      if (o === null || typeof o !== 'object' || typeof o.at !== 'number') return 'is not a saved answer {at, value}';
      try {
        valid(o.value);
      } catch (err) {
        return `holds an answer of the wrong shape (${(err as Error).message})`;
      }
      return undefined;
    };
    const s = readJsonState(file, 'set-aside', shape) as { at: number; value: T } | undefined;
    if (s && this.clock.now() - s.at < this.indexMaxAgeMs) return Promise.resolve(s.value);
    return fetcher().then((value) => {
      writeFileAtomic(file, JSON.stringify({ at: this.clock.now(), value }), 0o644);
      return value;
    });
  }

  /**
   * Every ad, reused for indexMaxAgeMs whatever the headers say: the spec asks
   * clients to cache this route, and with its limits (1/min, 10/h) a client
   * that fetched on every no-store would wait hours between picks.
   */
  async all(): Promise<Ad[]> {
    const route = this.label('all');
    const check = (v: unknown): Ad[] => checkArray(route, v).map((a) => validateAd(route, a));
    return this.stored(
      'index',
      async () => {
        const res = await this.call({ route: 'all', cache: true });
        return check(this.json(res, route));
      },
      check,
    );
  }

  async leaderboard(): Promise<Record<string, number>> {
    const route = this.label('leaderboard');
    const check = (v: unknown): Record<string, number> => {
      if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((n) => Number.isInteger(n))) {
        throw new ProtocolError(route, 'expected an object of integer counts');
      }
      return v as Record<string, number>;
    };
    return this.stored(
      'leaderboard',
      async () => {
        const res = await this.call({ route: 'leaderboard', cache: true });
        return check(this.json(res, route));
      },
      check,
    );
  }

  /** An ad from the cached index, chosen with probability proportional to its bias (no `random` call). */
  async pick(): Promise<Ad> {
    const ads = await this.all();
    if (!ads.length) throw new ProtocolError(this.label('all'), 'the index is empty');
    const weights = ads.map((a) => (Number.isFinite(a.bias) && a.bias > 0 ? a.bias : 0));
    const total = weights.reduce((s, w) => s + w, 0);
    if (total === 0) return ads[Math.floor(this.rand() * ads.length)]!;
    let r = this.rand() * total;
    for (let i = 0; i < ads.length; i++) {
      r -= weights[i]!;
      if (r < 0) return ads[i]!;
    }
    return ads[ads.length - 1]!;
  }

  imageUrl(ad: Pick<Ad, 'filename'>): URL {
    return this.url(fillPath(AD_ROUTES.image, { filename: ad.filename }));
  }

  /** The contact page's address, built now from the token: never store it. */
  contactUrl(ad: Pick<Ad, 'contact'>): URL {
    if (typeof ad?.contact !== 'string' || ad.contact === '') throw argumentError(TypeError, 'ad.contact', `must be the ad's contact token (got ${show(ad?.contact)})`);
    return this.url('/ads/contact', { for: ad.contact });
  }

  /** The ad's image, cached on disk for imageMaxAgeMs (counted from when it was saved). */
  async image(ad: Pick<Ad, 'filename'>): Promise<{ path: string; content: Bytes; fromCache: boolean }> {
    if (typeof ad?.filename !== 'string' || ad.filename === '') throw argumentError(TypeError, 'ad.filename', `must be the ad's image name (got ${show(ad?.filename)})`);
    const dir = this.hostFile('images');
    const local = path.join(dir, sanitizeFilename(ad.filename));
    const saved = statSync(local, { throwIfNoEntry: false });
    if (saved?.isFile() && this.clock.now() - saved.mtimeMs < this.imageMaxAgeMs) return { path: local, content: readFileSync(local), fromCache: true };
    const res = await this.call({ route: 'image', params: { filename: ad.filename }, raw: true });
    makeFolderSync(dir);
    writeFileAtomic(local, res.body, 0o644);
    // Images of ads never shown again go once imageMaxAgeMs has passed.
    this.imagesSweep ??= new FolderSweep(dir, this.clock, this.imageMaxAgeMs);
    this.imagesSweep.maybe();
    return { path: local, content: res.body, fromCache: false };
  }
}
