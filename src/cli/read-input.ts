/**
 * A text input a command reads whole: a file, a pipe or `-` for stdin, up
 * to a size, so `cat f | powprime …`, `<(…)` and /dev/stdin work as they do
 * for other tools, while /dev/zero or a file larger than a string can hold
 * is refused by name instead of failing deep inside.
 */
import { createReadStream, statSync } from 'node:fs';
import { addAbortSignal, type Readable } from 'node:stream';

const MIB = 1 << 20;

/**
 * The text of `file` (`-`: stdin), refused (RangeError, naming `flag`) when it is a folder, missing or over
 * `maxBytes`. `signal` stops the wait: a pipe's writer may take its time, and a stop must not wait for it.
 */
export async function readTextInput(file: string, flag: string, maxBytes: number, signal?: AbortSignal): Promise<string> {
  if (file === '') throw new RangeError(`${flag} must name a file, or - for stdin (got "")`);
  const what = file === '-' ? `${flag} - (stdin)` : `${flag} ${file}`;
  if (file !== '-') checkInputFile(file, what);
  // Streamed, not one blocking read: a pipe whose writer is slow is waited for (a blocking read of fd 0 can fail with EAGAIN).
  const input: Readable = file === '-' ? process.stdin : createReadStream(file);
  if (signal) addAbortSignal(signal, input);
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of input) {
      bytes += (chunk as Buffer).length;
      if (bytes > maxBytes) throw new RangeError(`${what} is over ${Math.round(maxBytes / MIB)} MiB; split it (split -l 100000) and give the parts one at a time`);
      chunks.push(chunk as Buffer);
    }
  } finally {
    if (file !== '-') input.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Refuses (RangeError) an input `file` that is missing or a folder, naming it as `what` (the flag and file, or the file). */
export function checkInputFile(file: string, what: string = file): void {
  const st = statSync(file, { throwIfNoEntry: false });
  if (st === undefined) throw new RangeError(`${what}: no such file`);
  if (st.isDirectory()) throw new RangeError(`${what} is a directory; give a file`);
}
