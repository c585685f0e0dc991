/**
 * The indexes a merge lacks between 0 and the highest it holds (a shard not
 * merged, or not finished), as its warning names them: search files and
 * moduli files say it the same way.
 */

/** `index 3` or `indexes 1, 3, …` (the first ten), or null when none below the highest is missing. */
export function lackedIndexes(indexes: number[]): string | null {
  const have = new Set(indexes);
  const top = indexes.reduce((m, i) => (i > m ? i : m), 0);
  const missing: number[] = [];
  for (let i = 0; i <= top && missing.length <= 10; i++) if (!have.has(i)) missing.push(i);
  if (!missing.length) return null;
  return `index${missing.length > 1 ? 'es' : ''} ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''}`;
}
