/** A list of moduli sizes as `moduli --bits` and `bench --moduli-bits` take it. */
import { MODULI_MAX_BITS, MODULI_MIN_BITS } from '../moduli/format.ts';
import { checkInteger } from '../validate.ts';
import { parseIntArg } from './args.ts';

/**
 * `2048,3072,8192`: sizes in bits, each once, in the order given. The flag
 * given more than once (each text a list) adds up, as `--bits 3072 --bits 8192`.
 */
export function parseSizes(texts: readonly string[], flag = '--bits'): number[] {
  const sizes = texts.flatMap((text) => {
    const parts = text.split(',').map((part) => part.trim());
    if (parts.includes('')) throw new RangeError(`${flag} has an empty item (got ${JSON.stringify(text)}); give sizes like 3072,4096,8192`);
    return parts.map((part) => checkInteger(flag, parseIntArg(flag, part), MODULI_MIN_BITS, MODULI_MAX_BITS));
  });
  const twice = sizes.find((b, i) => sizes.indexOf(b) !== i);
  if (twice !== undefined) throw new RangeError(`${flag} names ${twice} twice`);
  return sizes;
}

/** Commander's collector for a repeatable size list: every text given, in order. */
export function collectSizes(text: string, previous?: string[]): string[] {
  return [...(previous ?? []), text];
}
