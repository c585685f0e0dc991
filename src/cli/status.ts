import { progressEvent, progressMode } from './progress-mode.ts';

/**
 * A command's progress: a one-line status on a terminal's stderr (the `bar`
 * mode), one JSON line per tick under --progress=json (the tick's fields,
 * when it has some), otherwise nothing.
 */
export class StatusLine {
  private shown = false;
  /** The pending tick of a countdown on this line: one at a time, cancelled by clear(). */
  private timer: NodeJS.Timeout | null = null;

  /** Runs `tick` after `ms` (unref'd), replacing any tick still pending: a new countdown takes over the line. */
  schedule(tick: () => void, ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      tick();
    }, ms).unref();
  }

  update(text: string, fields?: Record<string, number | string | null>): void {
    const mode = progressMode();
    if (mode === 'json' && fields) progressEvent(fields);
    if (mode !== 'bar') return;
    process.stderr.write(`\r\x1b[2K${text}`);
    this.shown = true;
  }

  /** Clears the line and stops a countdown on it, so nothing is drawn over what is printed next. */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.shown) process.stderr.write('\r\x1b[2K');
    this.shown = false;
  }
}
