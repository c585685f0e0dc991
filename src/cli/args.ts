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
 * judge); anything else is refused naming the flag. So is a whole number past
 * 2^53, which a number would round: the API would then quote a value the
 * user never typed.
 */
export function parseIntArg(name: string, text: string): number {
  if (!/^-?\d+(\.\d+)?$/.test(text.trim())) throw argumentError(RangeError, name, `must be an integer (got ${show(text)})`);
  const n = Number(text);
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) {
    throw argumentError(RangeError, name, `must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER} (got ${show(text)})`);
  }
  return n;
}

/** A whole number as a number while it is exact, else a bigint (for counts past 2^53). */
export function parseBigArg(name: string, text: string): number | bigint {
  if (!/^-?\d+$/.test(text.trim())) throw argumentError(RangeError, name, `must be a whole number (got ${show(text)})`);
  const n = BigInt(text.trim());
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
