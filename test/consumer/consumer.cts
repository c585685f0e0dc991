// A CommonJS TypeScript user of the installed package (`import = require`), compiled with
// skipLibCheck off under "module": "nodenext", which lets CommonJS require an ES module
// from TypeScript 5.8 on (earlier versions say TS1471, as install.md tells).
import pp = require('powprime');

export async function use(): Promise<string> {
  const s: pp.PowSolution = await pp.solvePow({ nonce: 'cts', difficulty: 2 }, { threads: 1 });
  return s.solution;
}
