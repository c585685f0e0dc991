/**
 * Command-line values: the CLI only turns text into numbers; whether a number
 * is allowed is the API's to say (src/validate.ts, with the bounds of
 * src/limits.ts). The API's error names its argument (`threads`); flagNamed
 * puts the flag that carried it (`--threads`) in its place, so a mistake reads
 * the same from the API and from the command line.
 */
import type { Command } from 'commander';
import { argumentError, isArgumentError, show } from '../validate.ts';

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:e\+?(\d+))?$/i;

/**
 * The exact value of decimal text (digits, a fraction, exponent notation as
 * people write large counts: `1e6`, `2.5e9`): a bigint when it is whole,
 * 'fraction' when not, 'huge' from 10^1001 (nothing here is that large, and
 * refusing early keeps `1e999999999` from building a huge bigint), null when
 * the text is no decimal. Exact, so nothing is judged through a rounded number.
 */
function exactDecimal(text: string): bigint | 'fraction' | 'huge' | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const [, sign, int, frac = '', exp = '0'] = m;
  const significant = (int! + frac).replace(/^0+/, '');
  if (!significant) return 0n;
  // The value's digits before the point: judged by its size, not by the
  // exponent as written (0.1e1001 is 1e1000, as is 100e998).
  const e = Number(exp);
  const whole = int!.replace(/^0+/, '');
  const magnitude = whole ? e + whole.length : e - (frac.length - frac.replace(/^0+/, '').length);
  if (magnitude > 1001) return 'huge';
  const digits = BigInt(significant);
  const shift = e - frac.length;
  const scale = 10n ** BigInt(Math.abs(shift));
  if (shift < 0 && digits % scale !== 0n) return 'fraction';
  const abs = shift < 0 ? digits / scale : digits * scale;
  return sign ? -abs : abs;
}

/**
 * A duration as people write it: a number and a unit (ms, s, m or h; seconds
 * when none), e.g. 90s, 10m, 2h, 500ms, 1.5h. In milliseconds, rounded.
 */
export function parseDuration(name: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new RangeError(`${name} must be a duration such as 90s, 10m, 2h or 500ms (got ${JSON.stringify(text)})`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(m[1]) * unit);
}

/**
 * Decimal text as a number: a fraction or a sign is passed on for the API to
 * judge (it quotes the value); anything else is refused naming the flag. So
 * is a whole number past 2^53, or a fraction a number would round to a whole
 * one: the API would then judge a value the user never typed.
 */
export function parseIntArg(name: string, text: string): number {
  const exact = exactDecimal(text);
  const notInteger = (): never => {
    throw argumentError(RangeError, name, `must be an integer (got ${show(text)})`);
  };
  if (exact === null) return notInteger();
  if (exact === 'fraction') return Number.isInteger(Number(text)) ? notInteger() : Number(text);
  if (exact === 'huge' || exact < BigInt(Number.MIN_SAFE_INTEGER) || exact > BigInt(Number.MAX_SAFE_INTEGER)) {
    // The bound on the side the value fell (a huge value may be either: read its sign).
    const low = exact === 'huge' ? text.trim().startsWith('-') : exact < 0n;
    throw argumentError(RangeError, name, `must be an integer ${low ? `of at least ${-Number.MAX_SAFE_INTEGER}` : `of at most ${Number.MAX_SAFE_INTEGER}`} (got ${show(text)})`);
  }
  return Number(exact);
}

/** A whole number as a number while it is exact, else a bigint (for counts past 2^53). */
export function parseBigArg(name: string, text: string): number | bigint {
  const exact = exactDecimal(text);
  if (exact === null || exact === 'fraction') throw argumentError(RangeError, name, `must be a whole number (got ${show(text)})`);
  if (exact === 'huge') throw argumentError(RangeError, name, `must be a whole number of at most 1001 digits (got ${show(text)})`);
  return exact >= BigInt(Number.MIN_SAFE_INTEGER) && exact <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(exact) : exact;
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
