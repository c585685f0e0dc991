import type { Command } from 'commander';
import { isProbablePrime, isSafePrime } from '../prime/check.ts';
import { parseBigInt } from '../validate.ts';

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('for each number: is it prime, and is it a safe prime (p and (p-1)/2 both prime)?')
    .argument('<n...>', 'numbers, decimal or 0x hex')
    .option('--json', 'print [{"n","prime","safe"}] with n as a decimal string')
    .action(async (texts: string[], opts: { json?: boolean }) => {
      // Parse every argument first, so a typo in the last one costs no work.
      const numbers = texts.map((t, i) => {
        const n = parseBigInt(texts.length > 1 ? `n (argument ${i + 1})` : 'n', t);
        if (n < 0n) throw new RangeError(`${texts.length > 1 ? `n (argument ${i + 1})` : 'n'} must not be negative (got ${t})`);
        return n;
      });
      const results = await Promise.all(
        numbers.map(async (n) => {
          const prime = await isProbablePrime(n);
          const safe = n >= 5n && prime ? await isSafePrime(n) : false;
          return { n: n.toString(), prime, safe };
        }),
      );
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(results)}\n`);
        return;
      }
      for (const r of results) {
        process.stdout.write(`${r.n}: ${r.safe ? 'safe prime' : r.prime ? 'prime, not safe' : 'composite'}\n`);
      }
    });
}
