// The Redis replay store shared by processes: real redis-server (started by
// test/helpers/redis-setup.ts), real separate Node processes verifying the
// same solved token. The first use is accepted, every other refused as
// replayed, and Redis drops the key once the token has expired.
import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createChallenge } from '../src/pow/challenge.ts';
import { RedisReplayStore } from '../src/pow/replay-store-redis.ts';
import { replayId } from '../src/pow/challenge-token.ts';
import { verifySolution } from '../src/pow/challenge-verify.ts';
import { tempDir } from './helpers/tmp.ts';

const redisUrl = inject('redisUrl');
if (!redisUrl) {
  if (process.env.POWPRIME_REQUIRE_REDIS === '1') throw new Error('redis-server is required here (POWPRIME_REQUIRE_REDIS=1) but is not installed');
  process.stderr.write('\n*** challenge replay-store tests SKIPPED: redis-server is not installed (apt-get install -y redis-server) ***\n\n');
}

const KEY = randomBytes(32);
const PREFIX = `test:challenge:${randomUUID()}:`;

function solved(ttlMs?: number): { nonce: string; solution: string } {
  const { nonce } = createChallenge({ keys: KEY, difficulty: 2, ...(ttlMs === undefined ? {} : { ttlMs }) });
  for (let s = 0; ; s++)
    if (
      createHash('sha256')
        .update(nonce + s)
        .digest('hex')
        .startsWith('00')
    )
      return { nonce, solution: String(s) };
}

interface Verifier {
  ready: Promise<void>;
  outcome: Promise<string>;
}

function verifier(proof: { nonce: string; solution: string }, go?: string): Verifier {
  const args = ['--import', 'tsx', 'test/fixtures/challenge-redis-verifier.ts', redisUrl, PREFIX, KEY.toString('hex'), proof.nonce, proof.solution, ...(go ? [go] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('ready\n')) markReady();
  });
  const outcome = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.replace('ready\n', '').trim()) : reject(new Error(`verifier exited ${code}: ${out}`))));
  });
  return { ready, outcome };
}

describe.skipIf(!redisUrl)('RedisReplayStore across processes', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(redisUrl);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${PREFIX}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('one process accepts a solved token, a second process refuses it as replayed', async () => {
    const proof = solved();
    expect(await verifier(proof).outcome).toBe('accepted');
    expect(await verifier(proof).outcome).toBe('replayed');
  });

  it('two processes racing on one token: exactly one accepts', async () => {
    const proof = solved();
    const go = join(tempDir(), 'go');
    const racers = [verifier(proof, go), verifier(proof, go)];
    await Promise.all(racers.map((r) => r.ready));
    writeFileSync(go, '');
    expect((await Promise.all(racers.map((r) => r.outcome))).sort()).toEqual(['accepted', 'replayed']);
  });

  it('the key lives until the token expires plus the clock-skew margin, then Redis drops it', async () => {
    const proof = solved(60_000);
    const store = new RedisReplayStore(redis, { prefix: PREFIX, skewMs: 1000 });
    await verifySolution(proof, { keys: KEY, replayStore: store });
    const pttl = await redis.pttl(PREFIX + replayId(proof.nonce));
    expect(pttl).toBeGreaterThan(55_000);
    expect(pttl).toBeLessThanOrEqual(61_000);
    const short = solved(500);
    await verifySolution(short, { keys: KEY, replayStore: new RedisReplayStore(redis, { prefix: PREFIX, skewMs: 0 }) });
    const key = PREFIX + replayId(short.nonce);
    expect(await redis.exists(key)).toBe(1);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await redis.exists(key)).toBe(0);
  });
});
