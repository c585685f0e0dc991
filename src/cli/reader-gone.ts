/**
 * A command that prints its results on standard output as it finds them
 * (`powprime moduli --bits 8192 | head -2`) learns that its reader has gone
 * only from a write failing with EPIPE (main.ts ends it quietly then), and
 * its next line may be many minutes away: it would search on for no one.
 * So while such a command runs with stdout a pipe or a socket, the addon is
 * asked once a second whether the reader is still there (os/reader_gone.h),
 * and the command ends as the failed write would have ended it, exit 0: the
 * reader had what it wanted. Nothing is lost, as the results have no other
 * home (with --out the file keeps them and this watch is not started).
 * Without the addon (the JavaScript backend), or on Windows, the failed
 * write remains the only sign.
 */
import { fstatSync } from 'node:fs';
import { nativeIfLoaded } from '../native.ts';
import { leaveProcess } from './interrupt.ts';

const CHECK_MS = 1000;

/** Watches stdout's reader for the rest of the command, when stdout is a pipe or a socket. */
export function stopWhenReaderGoes(): void {
  let pipe: boolean;
  try {
    const st = fstatSync(1);
    pipe = st.isFIFO() || st.isSocket();
  } catch {
    return; // no stdout at all: nothing to watch
  }
  if (!pipe) return;
  const timer = setInterval(() => {
    // Not loaded yet: no search has started, and the failed write will tell.
    if (nativeIfLoaded()?.readerGone(1) === true) leaveProcess(0);
  }, CHECK_MS);
  timer.unref();
}
