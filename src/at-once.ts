/**
 * Bounded concurrency for pool work driven from the main thread (moduli
 * screening, the CLI's line checks): a task on each item, a few at a time,
 * so the pool's threads stay fed without queueing thousands of tasks at
 * once, and a stop or a failure ends it soon.
 */
/** Runs `task` on each of `items`, `atOnce` at a time; the signal stops it between two tasks. */
export async function forEachAtOnce<T>(items: T[], atOnce: number, task: (x: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (next < items.length && !failed) {
      signal?.throwIfAborted();
      try {
        await task(items[next++]!);
      } catch (err) {
        // The other lanes start nothing more: the caller is told at once and need not wait for the rest.
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, lane));
  // A stop that came during the last tasks: nothing that follows may look finished.
  signal?.throwIfAborted();
}
