/**
 * The clients' state files read back, with an explicit policy for a corrupt
 * file (they are written whole by src/fs/atomic-write.ts).
 */
import { readFileSync, renameSync } from 'node:fs';
import { StateFileCorruptError } from '../errors.ts';

/**
 * What to do with a state file that exists but is not valid JSON (a disk
 * fault, a hand edit): the one policy for every state file, chosen per file.
 * - 'set-aside': rename it to `<name>.corrupt-<ms>` (kept for inspection),
 *   warn once, and start from empty state. For state whose loss costs only
 *   time or a little budget: limiter records, cookies, caches, queues.
 * - 'refuse': throw StateFileCorruptError and touch nothing. For state that
 *   cannot be rebuilt: the registry keystore, which holds private keys.
 */
export type CorruptPolicy = 'set-aside' | 'refuse';

/**
 * Says what is wrong with a parsed state file's shape ("entry 3 has no prime"),
 * or undefined when it is usable. A wrong shape is handled like invalid JSON.
 */
export type ShapeCheck = (parsed: unknown) => string | undefined;

/** The parsed JSON of `file`, or undefined when it does not exist (or was set aside). */
export function readJsonState(file: string, policy: CorruptPolicy, shape?: ShapeCheck): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let parsed: unknown;
  let problem: string | undefined;
  let cause: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
    problem = shape?.(parsed);
  } catch (err) {
    problem = 'is not valid JSON';
    cause = err;
  }
  if (problem === undefined) return parsed;
  if (policy === 'refuse') throw new StateFileCorruptError(file, cause, problem);
  const aside = `${file}.corrupt-${Date.now()}`;
  try {
    renameSync(file, aside);
  } catch (err) {
    // Another process read the same bad file and set it aside first.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  process.emitWarning(`${file} ${problem}; moved to ${aside}, starting afresh`, { code: 'POWPRIME_STATE_CORRUPT' });
  return undefined;
}
