/**
 * Sets of indexes written as increasing ranges (`0-9,12`), as a merged moduli
 * file's header names the indexes it holds: kept as ranges, since a short
 * line may name billions of indexes.
 */
const RANGES = /^\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*$/;

/** [[0,9],[12,12]] → `0-9,12`. */
export function rangesText(ranges: [number, number][]): string {
  return ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(',');
}

/** Sorted distinct indexes → ranges. */
export function toRanges(xs: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const x of xs) {
    const last = out[out.length - 1];
    if (last && x === last[1] + 1) last[1] = x;
    else out.push([x, x]);
  }
  return out;
}

/** `0-9,12`: increasing, disjoint ranges of safe integers, or null. Kept as ranges: a short line may name billions of indexes. */
export function parseRanges(text: string): [number, number][] | null {
  if (!RANGES.test(text)) return null;
  const out: [number, number][] = [];
  for (const part of text.split(',')) {
    const [a, b = a] = part.split('-').map(Number) as [number, number?];
    if (!Number.isSafeInteger(b) || b < a || (out.length && a <= out[out.length - 1]![1])) return null;
    out.push([a, b]);
  }
  return out;
}

/** The k-th index (0-based) the ranges name, or null past their end. */
export function nthIndex(ranges: [number, number][], k: number): number | null {
  for (const [a, b] of ranges) {
    if (k <= b - a) return a + k;
    k -= b - a + 1;
  }
  return null;
}

export const rangesLength = (ranges: [number, number][]): number => ranges.reduce((n, [a, b]) => n + (b - a + 1), 0);
