/**
 * The server side of proof of work: how many solved challenges
 * verifySolutionSync checks a second on one core, against node:crypto's
 * HMAC-SHA-256 on the token's header in the same run. A verification is one
 * HMAC and one SHA-256 of nonce‖solution plus the replay store, so the goal is
 * half of a bare node:crypto HMAC (issue goal ≥ 0.5×): a ratio, as the
 * machine's clock moves both.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Bench } from 'tinybench';
import { createChallenge } from '../src/pow/challenge.ts';
import { HEADER_LENGTH as HEADER_BYTES } from '../src/pow/challenge-token.ts';
import { verifySolutionSync, type ChallengeProof } from '../src/pow/challenge-verify.ts';
import { MemoryReplayStore } from '../src/pow/replay-store.ts';
import { ratio, spread, target, type BenchTarget } from './schema.ts';

export const VERIFY_GOAL = 0.5;

/** `n` challenges at difficulty 1, each solved by brute force with node:crypto (16 tries on average). */
function solvedProofs(keys: Uint8Array[], n: number, now: number): ChallengeProof[] {
  const proofs: ChallengeProof[] = [];
  for (let i = 0; i < n; i++) {
    const { nonce } = createChallenge({ keys, difficulty: 1, now });
    let s = 0;
    while (!createHash('sha256').update(`${nonce}${s}`).digest('hex').startsWith('0')) s++;
    proofs.push({ nonce, solution: String(s) });
  }
  return proofs;
}

const perSecond = (n: number, samplesMs: readonly number[]): number[] => samplesMs.map((ms) => n / (ms / 1000));

export async function challengeVerifyTarget(quick: boolean): Promise<BenchTarget> {
  const keys = [randomBytes(32)];
  const now = Date.now();
  const n = quick ? 4_000 : 20_000;
  const proofs = solvedProofs(keys, n, now);
  const header = randomBytes(HEADER_BYTES);
  const bench = new Bench({ time: quick ? 300 : 2000, iterations: quick ? 5 : 9, warmup: true, warmupIterations: 1, warmupTime: 0, throws: true, retainSamples: true });
  // Each sample checks every token once, against a fresh store: a second pass would be replays.
  bench.add('verify', () => {
    const replayStore = new MemoryReplayStore({ maxEntries: n });
    for (const p of proofs) verifySolutionSync(p, { keys, replayStore, now });
  });
  bench.add('hmac', () => {
    for (let i = 0; i < n; i++) createHmac('sha256', keys[0]!).update(header).digest();
  });
  await bench.run();
  const [verify, hmac] = bench.tasks.map((t) => spread(perSecond(n, t.result.state === 'completed' ? (t.result.latency.samples ?? []) : [])).median);
  const fmt = (x: number | null | undefined): string => (x == null ? '—' : `${Math.round(x).toLocaleString('en-US')}/s`);
  return {
    ...target('verifySolutionSync / node:crypto createHmac, one core', ratio(verify, hmac), '×', VERIFY_GOAL, 'min'),
    detail: `verifySolutionSync ${fmt(verify)} (difficulty 1, a MemoryReplayStore), node:crypto HMAC-SHA-256 of ${HEADER_BYTES} bytes ${fmt(hmac)}; medians over ${n} tokens a sample`,
  };
}
