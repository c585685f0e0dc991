/**
 * A replay store shared by many processes through Redis: one key per used
 * token, set with NX (only if absent: Redis decides the race between two
 * processes given the same token) and PX (dropped by Redis itself once the
 * token has expired). The client is injected, so nothing here loads a Redis
 * library.
 */
import { argumentError, checkInteger, checkString, show } from '../validate.ts';
import { checkOptions, optionNames } from '../option-checks.ts';
import type { ReplayStore } from './replay-store.ts';

/**
 * The one command used, in ioredis's shape: `SET key value PX ms NX`,
 * resolving to 'OK' when the key was set and null when it existed. For
 * node-redis (v4 and later), adapt it:
 * `{ set: (k, v, _px, ms) => client.set(k, v, { PX: ms, NX: true }) }`.
 */
export interface RedisSetClient {
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<unknown>;
}

export interface RedisReplayStoreOptions {
  /** Put before every token id (default 'powprime:challenge:'): several services can share one Redis. */
  prefix?: string;
  /**
   * Kept past the token's expiry, in ms (default 60,000): the verifiers'
   * clocks may differ, and one running behind still accepts the token a
   * little after another's expiry; the key must outlive that.
   */
  skewMs?: number;
}

/** Every option of RedisReplayStore: any other key is refused. */
const REDIS_REPLAY_STORE_OPTIONS = optionNames<RedisReplayStoreOptions>()(['prefix', 'skewMs']);

export class RedisReplayStore implements ReplayStore {
  readonly prefix: string;
  readonly skewMs: number;

  constructor(
    private readonly client: RedisSetClient,
    options?: RedisReplayStoreOptions,
  ) {
    if (client === null || typeof client !== 'object' || typeof (client as Partial<RedisSetClient>).set !== 'function') {
      throw argumentError(TypeError, 'client', `must have a set(key, value, 'PX', ms, 'NX') method, as an ioredis client does (got ${show(client)})`);
    }
    const o = checkOptions('options', options, 'RedisReplayStore', REDIS_REPLAY_STORE_OPTIONS);
    this.prefix = o.prefix === undefined ? 'powprime:challenge:' : checkString('prefix', o.prefix);
    this.skewMs = o.skewMs === undefined ? 60_000 : checkInteger('skewMs', o.skewMs, 0, 24 * 3_600_000);
  }

  async add(id: string, expiresAt: number, now: number): Promise<boolean> {
    const ms = Math.max(1, Math.ceil(expiresAt - now) + this.skewMs);
    const reply = await this.client.set(this.prefix + id, '1', 'PX', ms, 'NX');
    return reply === 'OK';
  }
}
