/**
 * Checks run over many items (the safe-prime check of every line a resumed
 * or merged file holds, search's or moduli's), several at once, with a
 * status line on a terminal and a stop signal honoured between two checks.
 */
import { forEachAtOnce } from '../at-once.ts';
import { interruptSignal } from './interrupt.ts';
import { StatusLine } from './status.ts';

/** Checks at once (each is one pool task). */
const CHECKS_AT_ONCE = 8;

/**
 * `check` on every item, CHECKS_AT_ONCE at a time, with a status line
 * ("`label` 3/40") on a terminal; a stop signal ends it between two checks.
 * With `untilFalse`, items after the first that fails are left unchecked
 * (undefined): a refusal needs only the first bad one.
 */
export async function checkEach<T>(items: T[], check: (x: T) => Promise<boolean>, label: string, untilFalse = false): Promise<(boolean | undefined)[]> {
  const results = new Array<boolean | undefined>(items.length);
  const status = new StatusLine();
  let checked = 0;
  let firstFalse = Infinity;
  try {
    await forEachAtOnce(
      items.map((_, i) => i),
      CHECKS_AT_ONCE,
      async (i) => {
        if (untilFalse && i > firstFalse) return;
        results[i] = await check(items[i]!);
        if (!results[i]) firstFalse = Math.min(firstFalse, i);
        status.update(`${label} ${++checked}/${items.length}`, { done: checked, total: items.length });
      },
      interruptSignal,
    );
  } finally {
    status.clear();
  }
  return results;
}
