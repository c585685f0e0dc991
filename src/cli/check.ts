import { isatty } from 'node:tty';
import type { Command } from 'commander';
import { isProbablePrime, isSafePrime } from '../prime/check.ts';
import { parseBigInt, showNumber } from '../validate.ts';
import { readTextInput } from './read-input.ts';

interface CheckOpts {
  json?: boolean;
  hex?: boolean;
  status?: boolean;
  safe?: boolean;
}

type Verdict = 'safe prime' | 'prime, not safe' | 'composite' | 'neither prime nor composite';

/**
 * The numbers to check: the arguments, with `-` (or no argument at all when
 * stdin is not a terminal) standing for whitespace-separated numbers on stdin,
 * as `echo 23 | powprime check` and `... | powprime check -` expect.
 */
async function numberTexts(args: string[]): Promise<{ text: string; from: string }[]> {
  // isatty(0) asks without making the stdin stream, which only readTextInput needs.
  const fromStdin = args.length === 0 ? !isatty(0) : args.includes('-');
  if (args.length === 0 && !fromStdin) throw new RangeError('give numbers to check, or pipe them in (e.g. echo 23 | powprime check)');
  // No size bound here: numbers on stdin were never capped.
  const piped = fromStdin ? (await readTextInput('-', 'n', Number.POSITIVE_INFINITY)).split(/\s+/).filter(Boolean) : [];
  if (fromStdin && piped.length === 0) throw new RangeError('stdin held no numbers to check');
  const out: { text: string; from: string }[] = [];
  let argN = 0;
  let lineN = 0;
  const many = args.length + piped.length > 1;
  for (const a of args.length ? args : ['-']) {
    if (a === '-') for (const p of piped) out.push({ text: p, from: `stdin number ${++lineN}` });
    else out.push({ text: a, from: many ? `n (argument ${++argN})` : 'n' });
  }
  return out;
}

/** Decimal or 0x hex; bare hex (ff, 1a2b) gets a hint rather than a bare refusal. */
function parseNumber(text: string, name: string): bigint {
  if (/^\d+e\d+$/i.test(text)) {
    throw new RangeError(`${name} ${JSON.stringify(text)} is either a power of ten or hexadecimal: write the number in full, or as 0x${text} for hexadecimal`);
  }
  if (/^[0-9a-f]+$/i.test(text) && /[a-f]/i.test(text)) {
    throw new RangeError(`${name} ${JSON.stringify(text)} looks like hexadecimal: write it as 0x${text} (decimal is the default)`);
  }
  const n = parseBigInt(name, text);
  if (n < 0n) throw new RangeError(`${name} must not be negative (got ${showNumber(n)})`);
  return n;
}

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('for each number: is it prime, and is it a safe prime (p and (p-1)/2 both prime)?')
    .argument('[n...]', 'numbers, decimal or 0x hex; - (or none, when piped) reads them from stdin')
    .option('--hex', 'print the numbers in hex (0x…) rather than decimal')
    .option('--status', 'print nothing; exit 0 when every number is prime, 1 when one is not (for scripts)')
    .option('--safe', 'with --status: every number must be a safe prime')
    .option('--json', 'print [{"n","prime","safe","composite"}] with n as a decimal string (0x… with --hex)')
    .addHelpText(
      'after',
      '\nExamples:\n  powprime check 23 0x17\n  echo 23 | powprime check\n  powprime check --hex 0xffffffffffffffc5\n  powprime check --status --safe 23 && echo safe\n' +
        '\n0 and 1 are neither prime nor composite. The test is Baillie–PSW plus Miller–Rabin rounds (error below 2^-80 on random input).',
    )
    .action(async (args: string[], opts: CheckOpts) => {
      if (opts.safe && !opts.status) throw new RangeError('--safe goes with --status (without it every verdict is printed)');
      if (opts.json && opts.status) throw new RangeError('--json does not go with --status, which prints nothing: its answer is the exit code');
      const status = opts.status ? (opts.safe ? 'safe' : 'prime') : null;
      // Parse every number first, so a typo in the last one costs no work.
      const numbers = (await numberTexts(args)).map(({ text, from }) => parseNumber(text, from));
      const results = await Promise.all(
        numbers.map(async (n) => {
          const prime = await isProbablePrime(n);
          const safe = n >= 5n && prime ? await isSafePrime(n) : false;
          // 0 and 1 have no prime factorisation to speak of: neither prime nor composite.
          const composite = !prime && n >= 2n;
          const verdict: Verdict = safe ? 'safe prime' : prime ? 'prime, not safe' : composite ? 'composite' : 'neither prime nor composite';
          return { n, prime, safe, composite, verdict };
        }),
      );
      const show = (n: bigint): string => (opts.hex ? `0x${n.toString(16)}` : n.toString());
      if (status !== null) {
        process.exitCode = results.every((r) => (status === 'safe' ? r.safe : r.prime)) ? 0 : 1;
        return;
      }
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(results.map((r) => ({ n: show(r.n), prime: r.prime, safe: r.safe, composite: r.composite })))}\n`);
        return;
      }
      for (const r of results) process.stdout.write(`${show(r.n)}: ${r.verdict}\n`);
    });
}
