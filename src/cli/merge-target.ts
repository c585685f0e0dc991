/**
 * Whether `merge --out` (or `moduli --screen --out`) may replace what is
 * there. It may when the file is one of the inputs (its lines are in the
 * output), missing or empty, or when every line of it is in the output
 * anyway (an earlier merge of fewer shards, an earlier screen of the same
 * file); otherwise replacing it would lose lines no input holds, so the
 * command is refused before anything is written.
 */
import { readFileSync, statSync } from 'node:fs';
import { plural } from './plural.ts';

function sameFile(a: string, b: string): boolean {
  const sa = statSync(a, { throwIfNoEntry: false });
  const sb = statSync(b, { throwIfNoEntry: false });
  return sa !== undefined && sb !== undefined && sa.dev === sb.dev && sa.ino === sb.ino;
}

/** How lines are compared and the command named: `key` maps a line to what must be kept of it (the line itself for a merge). */
export interface KeptBy {
  command: string;
  key?: (line: string) => string;
}

/** Refuses (RangeError, exit 2) replacing `target` when lines of it, comments aside, are not in `output` (compared by `by.key`). */
export function checkNothingLost(target: string, out: string, inputs: readonly string[], output: string, by: KeptBy = { command: 'merge' }): void {
  if (!statSync(target, { throwIfNoEntry: false })?.size || inputs.some((f) => sameFile(f, target))) return;
  const key = by.key ?? ((l: string): string => l);
  const kept = new Set(output.split('\n').map(key));
  let text: string;
  try {
    text = readFileSync(target, 'latin1');
  } catch (err) {
    throw new RangeError(`--out ${out} cannot be read to see what replacing it would lose (${(err as NodeJS.ErrnoException).code}): write elsewhere, or remove it first`);
  }
  // Comments are powprime's headers (the merge writes its own) or notes; the data lines are what must not go.
  const lost = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#') && !kept.has(key(l))).length;
  if (lost) {
    throw new RangeError(`--out ${out} holds ${plural(lost, 'line')} the ${by.command} would not keep (it is not one of the inputs): give it as an input too, write elsewhere, or remove it first`);
  }
}
