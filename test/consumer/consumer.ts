// A TypeScript user of the installed package: compiled with skipLibCheck off
// under two module settings, so the published declarations must stand alone.
import { backendInfo, solvePow, PowprimeError, QuestionClient, searchSafePrimes, type PowSolution, type BackendInfo } from 'powprime';
import { startFakeServices, ManualClock } from 'powprime/testing';

export async function use(): Promise<string> {
  const info: BackendInfo = backendInfo();
  const s: PowSolution = await solvePow({ nonce: 'ts', difficulty: 2 }, { threads: 1 });
  for await (const r of searchSafePrimes({ bits: 64, count: 1 })) void r.prime.toString(16);
  const fake = await startFakeServices({ clock: new ManualClock() });
  const client = new QuestionClient({ baseUrl: fake.url.href });
  void client;
  await fake.close();
  try {
    return `${info.backend} ${s.solution}`;
  } catch (e) {
    return e instanceof PowprimeError ? e.code : 'other';
  }
}
