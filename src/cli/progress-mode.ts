/**
 * How a command reports while it runs, set by the global --quiet and
 * --progress options: `bar` (the status line or bar on a terminal), `json`
 * (one JSON object per progress tick on stderr, for programs driving
 * powprime), or `none`. By default a terminal gets the bar and a pipe gets
 * nothing. --quiet means `none` (with --progress=json or bar it is refused),
 * and also drops the informational stderr lines (the seed, where a file went,
 * waits); errors and warnings are still one line each.
 */
export type ProgressMode = 'bar' | 'json' | 'none';

export const PROGRESS_CHOICES = ['auto', 'bar', 'json', 'none'] as const;

let mode: ProgressMode | null = null;
let quiet = false;

export function setOutputMode(o: { quiet?: boolean; progress?: string }): void {
  quiet = Boolean(o.quiet);
  const p = o.progress ?? 'auto';
  if (!(PROGRESS_CHOICES as readonly string[]).includes(p)) throw new RangeError(`--progress must be one of ${PROGRESS_CHOICES.join(', ')} (got ${JSON.stringify(p)})`);
  // --quiet drops the progress: a progress asked for beside it is a contradiction, refused rather than one side dropped.
  if (quiet && (p === 'json' || p === 'bar')) throw new RangeError(`--quiet and --progress=${p} do not go together: --quiet drops the progress`);
  mode = p === 'json' ? 'json' : quiet || p === 'none' ? 'none' : p === 'bar' || process.stderr.isTTY ? 'bar' : 'none';
}

export function progressMode(): ProgressMode {
  return mode ?? (process.stderr.isTTY ? 'bar' : 'none');
}

export function isQuiet(): boolean {
  return quiet;
}

/** An informational line on stderr (not an error or warning): dropped under --quiet. */
export function info(line: string): void {
  if (!quiet) process.stderr.write(`${line}\n`);
}

/**
 * Numbers as JSON gives them: integral values as integers, others to 3
 * decimals, or below 1 to 3 significant digits: an 8192-bit moduli run's
 * rate, 0.000279 groups a second, would otherwise read 0.
 */
export function tidy(v: number): number {
  if (Number.isInteger(v) || !Number.isFinite(v)) return v;
  return Math.abs(v) >= 1 ? Math.round(v * 1000) / 1000 : Number(v.toPrecision(3));
}

/** One progress tick as a JSON line on stderr, under --progress=json only. */
export function progressEvent(fields: Record<string, number | string | null>): void {
  if (progressMode() !== 'json') return;
  const out: Record<string, number | string | null> = { event: 'progress' };
  for (const [k, v] of Object.entries(fields)) out[k] = typeof v === 'number' ? (Number.isFinite(v) ? tidy(v) : null) : v;
  process.stderr.write(`${JSON.stringify(out)}\n`);
}
