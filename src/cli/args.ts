/**
 * Command-line values: the CLI only turns text into numbers; whether a number
 * is allowed is the API's to say (src/validate.ts, with the bounds of
 * src/limits.ts). The API's error names its argument (`threads`); flagNamed
 * puts the flag that carried it (`--threads`) in its place, so a mistake reads
 * the same from the API and from the command line.
 */
import type { Command } from 'commander';
import { argumentError, isArgumentError, show } from '../validate.ts';

/**
 * Decimal text as a number (a fraction or a sign included, for the API to
 * judge), with a power of ten if written so (`--count 1e6`, as people write
 * large counts); anything else is refused naming the flag. So is a whole
 * number past 2^53, which a number would round: the API would then quote a
 * value the user never typed.
 */
export function parseIntArg(name: string, text: string): number {
  if (!/^-?\d+(\.\d+)?(e\+?\d+)?$/i.test(text.trim())) throw argumentError(RangeError, name, `must be an integer (got ${show(text)})`);
  const n = Number(text);
  if (!Number.isFinite(n) || (Number.isInteger(n) && !Number.isSafeInteger(n))) {
    throw argumentError(RangeError, name, `must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER} (got ${show(text)})`);
  }
  return n;
}

/**
 * A whole number as a number while it is exact, else a bigint (for counts
 * past 2^53). A power of ten is taken as written (`1e6`, `2.5e3`), exactly:
 * the bigint is built from the digits, never through a rounded number.
 */
export function parseBigArg(name: string, text: string): number | bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e\+?(\d+))?$/i.exec(text.trim());
  const whole = (): never => {
    throw argumentError(RangeError, name, `must be a whole number (got ${show(text)})`);
  };
  if (!m) return whole();
  const [, sign, int, frac = '', exp = '0'] = m;
  // Past 10^1000 nothing here is a count; refusing early keeps "1e999999999" from building a huge bigint.
  if (exp.length > 4 || Number(exp) > 1000) throw argumentError(RangeError, name, `is too large (got ${show(text)})`);
  const shift = Number(exp) - frac.length;
  const digits = BigInt(int! + frac);
  if (shift < 0 && digits % 10n ** BigInt(-shift) !== 0n) return whole();
  const abs = shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift);
  const n = sign ? -abs : abs;
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/**
 * The error an API call threw, with the argument's name replaced by the flag
 * of `command` whose value it was (`maxAttempts` → `--max-attempts`, as
 * commander names an option's value). Positional arguments already carry the
 * API's name (`solve <nonce> <difficulty>`, `dhparam [bits]`), and any other
 * error passes unchanged.
 */
export function flagNamed(err: unknown, command: Command | undefined): unknown {
  if (!command || !isArgumentError(err)) return err;
  const flag = command.options.find((o) => o.long !== undefined && o.attributeName() === err.argument)?.long;
  if (flag === undefined || !err.message.startsWith(`${err.argument} `)) return err;
  return argumentError(err instanceof TypeError ? TypeError : RangeError, flag, err.message.slice(err.argument.length + 1));
}

export function formatRate(perSecond: number): string {
  return perSecond >= 1e6 ? `${(perSecond / 1e6).toFixed(1)} M/s` : `${(perSecond / 1e3).toFixed(1)} k/s`;
}
