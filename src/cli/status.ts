/** A one-line status on a terminal's stderr; silent when stderr is not a terminal. */
export class StatusLine {
  private readonly tty = Boolean(process.stderr.isTTY);
  private shown = false;

  update(text: string): void {
    if (!this.tty) return;
    process.stderr.write(`\r\x1b[2K${text}`);
    this.shown = true;
  }

  clear(): void {
    if (this.shown) process.stderr.write('\r\x1b[2K');
    this.shown = false;
  }
}
