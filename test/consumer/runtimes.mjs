// One user's session on whatever JavaScript runtime runs this file (Node, Bun,
// Deno; run by scripts/consumer-check.sh): the PoW and prime API, the
// service clients against the fake services, and the native backend loaded.
// Prints the answers as one JSON line, which must be the same on every runtime.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdClient, backendInfo, closePool, findSafePrime, isSafePrime, QuestionClient, solvePow, verifyPow } from 'powprime';
import { startFakeServices } from 'powprime/testing';

const info = backendInfo();
if (info.backend !== 'native') throw new Error(`expected the native backend, got ${info.backend}: ${info.nativeError}`);
const pow = await solvePow({ nonce: 'runtimes', difficulty: 4 });
const prime = await findSafePrime({ bits: 256, seed: 7n });
const answers = {
  solution: pow.solution,
  verified: verifyPow('runtimes', 4, pow.solution),
  forged: verifyPow('runtimes', 4, `${pow.solution}0`),
  prime: prime.toString(16),
  safe: await isSafePrime(prime),
  composite: await isSafePrime(prime + 2n),
};
const state = mkdtempSync(join(tmpdir(), 'powprime-runtimes-'));
const fake = await startFakeServices();
try {
  // A question asked as the service wants it: its PoW solved, the answer's id back.
  const question = new QuestionClient({ baseUrl: fake.url.href, stateDir: join(state, 'q') });
  const id = await question.query('What runs this?');
  answers.questionAsked = typeof id === 'string' && id.length > 0;
  const ads = new AdClient({ baseUrl: fake.url.href, stateDir: join(state, 'a') });
  answers.ads = (await ads.all()).length > 0;
} finally {
  await fake.close();
  rmSync(state, { recursive: true, force: true });
}
await closePool();
console.log(JSON.stringify(answers));
