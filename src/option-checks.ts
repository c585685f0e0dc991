/**
 * Options objects at the public boundary: a plain object whose every key is
 * an option of the function or class it is given to, so a misspelled option
 * is refused (naming the nearest known one) rather than silently ignored.
 * The option lists are checked against their types (optionNames).
 */
import { argumentError, show } from './validate.ts';

/** Keys of T that the list K leaves out. */
type Unlisted<T, K extends readonly PropertyKey[]> = Exclude<keyof T, K[number]>;

/**
 * The names of an options type, listed beside it for checkOptionKeys:
 * `optionNames<SolveOptions>()(['threads', …])`. A name the type does not
 * have, or one of its options left out, does not compile, so the list cannot
 * drift from the type.
 */
export function optionNames<T extends object>() {
  return <const K extends readonly (keyof T & string)[]>(names: K & ([Unlisted<T, K>] extends [never] ? unknown : { 'options not listed': Unlisted<T, K> })): K => names;
}

/**
 * Refuses a key of an options object that is not one of `known` (a misspelled
 * option would otherwise be ignored and its default used): a TypeError naming
 * the key, the function or class that refused it, the nearest known name and
 * every known one. A known key given as undefined is fine (its default).
 */
export function checkOptionKeys(name: string, value: object, where: string, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const near = nearestName(key, known);
    const hint = near === undefined ? '' : ` (did you mean ${near}?)`;
    const list = known.length ? `its options are ${known.join(', ')}` : 'it takes none';
    const path = /^[A-Za-z_$][\w$]*$/.test(key) ? `${name}.${key}` : `${name}[${show(key)}]`;
    throw argumentError(TypeError, path, `is not an option of ${where}${hint}; ${list}`);
  }
}

/**
 * The known name nearest to `key` (case ignored), when it is near enough to
 * be a slip: a few edits away, or the start of it (`homepage` for `homepageUrl`).
 */
function nearestName(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  const k = key.toLowerCase();
  for (const name of known) {
    const n = name.toLowerCase();
    const d = k.length >= 3 && n.startsWith(k) ? 1 : editDistance(k, n);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}

/** An object argument: anything but a plain object (null, an array, a number) is a TypeError naming it. */
function checkPlainObject<T extends object>(name: string, value: T, text = 'must be an object'): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw argumentError(TypeError, name, `${text} (got ${show(value)})`);
  return value;
}

/**
 * An options argument of `where`: undefined means none; anything but a plain
 * object is a TypeError, and so is a key that is not in `known`.
 */
export function checkOptions<T extends object>(name: string, value: T | undefined, where: string, known: readonly string[]): T | Record<string, never> {
  if (value === undefined) return {};
  checkOptionKeys(name, checkPlainObject(name, value), where, known);
  return value;
}

/**
 * An options argument of `where` that must be given: anything but a plain
 * object is a TypeError saying `text` (what it must hold), and so is a key
 * that is not in `known`.
 */
export function checkRequiredOptions<T extends object>(name: string, value: T, where: string, known: readonly string[], text: string): T {
  checkOptionKeys(name, checkPlainObject(name, value, text), where, known);
  return value;
}
