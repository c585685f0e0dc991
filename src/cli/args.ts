/** Parsers for command-line values: strict, and naming the argument on error. */

export function parseIntArg(name: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) throw new RangeError(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(text)})`);
  const n = Number(text);
  if (n < min || n > max) throw new RangeError(`${name} must be an integer from ${min} to ${max} (got ${text})`);
  return n;
}

export function parseBigArg(name: string, text: string): bigint {
  if (!/^\d+$/.test(text)) throw new RangeError(`${name} must be a whole number (got ${JSON.stringify(text)})`);
  return BigInt(text);
}

export function formatRate(perSecond: number): string {
  return perSecond >= 1e6 ? `${(perSecond / 1e6).toFixed(1)} M/s` : `${(perSecond / 1e3).toFixed(1)} k/s`;
}
