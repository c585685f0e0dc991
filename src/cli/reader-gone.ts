/**
 * A command that prints its results on standard output as it finds them
 * (`powprime moduli --bits 8192 | head -2`) learns that its reader has gone
 * only from a write failing with EPIPE (main.ts ends it quietly then), and
 * its next line may be many minutes away: it would search on for no one.
 * So while such a command runs with stdout a pipe or a Unix socket, the
 * addon is asked once a second whether the reader is still there
 * (os/reader_gone.h), and the command ends as the failed write would have
 * ended it, exit 0: the reader had what it wanted.
 *
 * Armed only where the results have no other home and nothing is half done
 * between two of them: not with --out (the file keeps them), --register (a
 * registration cut short would leave its prime `sending`, its key lost) or
 * --queue (the coordinator has a queue to withdraw from, and loads no addon).
 * Without the addon (the JavaScript backend), on Windows, for a TCP reader
 * (seen only when a write fails), the failed write remains the only sign.
 */
import { fstatSync } from 'node:fs';
import { nativeIfLoaded } from '../native.ts';
import { interruptSignal, leaveProcess } from './interrupt.ts';

const CHECK_MS = 1000;

/** Watches stdout's reader while the command runs, when stdout is a pipe or a socket; the function returned stops watching. */
export function stopWhenReaderGoes(): () => void {
  let pipe: boolean;
  try {
    const st = fstatSync(1);
    pipe = st.isFIFO() || st.isSocket();
  } catch {
    return () => {}; // no stdout at all: nothing to watch
  }
  if (!pipe) return () => {};
  const timer = setInterval(() => {
    // A stop under way (a Ctrl-C reaches the reader too) ends as an interruption, in its own way.
    if (interruptSignal.aborted) return;
    const n = nativeIfLoaded();
    // Not loaded yet: no search has started. An addon built before readerGone: the failed write will tell.
    if (typeof n?.readerGone === 'function' && n.readerGone(1)) leaveProcess(0);
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
