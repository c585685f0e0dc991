/**
 * A text input a command reads whole: a file, a pipe or `-` for stdin, up
 * to a size, so `cat f | powprime …`, `<(…)` and /dev/stdin work as they do
 * for other tools, while /dev/zero or a file larger than a string can hold
 * is refused by name instead of failing deep inside.
 */
import { createReadStream, statSync } from 'node:fs';
import { addAbortSignal, type Readable } from 'node:stream';

const MIB = 1 << 20;
/** The C0 controls but tab, and DEL: none is in a line of text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/**
 * The text of `file` (`-`: stdin), refused (RangeError, naming `flag`) when it is a folder, missing or over
 * `maxBytes`. `signal` stops the wait: a pipe's writer may take its time, and a stop must not wait for it.
 */
export async function readTextInput(file: string, flag: string, maxBytes: number, signal?: AbortSignal): Promise<string> {
  return (await readInputBytes(file, flag, maxBytes, signal)).toString('utf8');
}

/** readTextInput's bytes, undecoded: for a caller that must refuse what is not text. */
export async function readInputBytes(file: string, flag: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
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
  return Buffer.concat(chunks);
}

/**
 * `bytes` as lines of text, refused (RangeError naming `what` and the line)
 * when they are not UTF-8 or a line holds a control character other than a
 * tab: a binary file given by mistake, whose lines would otherwise be taken
 * as text with U+FFFD in place of each bad byte.
 */
export function textLines(bytes: Buffer, what: string): string[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new RangeError(`${what} is not UTF-8 text (a binary file?)`);
  }
  const lines = text.split('\n');
  // A CR before the newline is a Windows line ending, not a control character of the line.
  const bad = lines.findIndex((l) => CONTROL.test(l.replace(/\r$/, '')));
  if (bad < 0) return lines;
  // A CR inside a line, and no other control character: lines ended by CR alone (classic Mac OS), not a binary file.
  if (!CONTROL.test(lines[bad]!.replace(/\r/g, '')))
    throw new RangeError(`${what} line ${bad + 1} holds a carriage return inside it: are its lines ended by CR alone? Save it with LF (or CRLF) line endings`);
  throw new RangeError(`${what} line ${bad + 1} holds a control character: is it a text file?`);
}

/** Refuses (RangeError) an input `file` that is missing or a folder, naming it as `what` (the flag and file, or the file). */
export function checkInputFile(file: string, what: string = file): void {
  const st = statSync(file, { throwIfNoEntry: false });
  if (st === undefined) throw new RangeError(`${what}: no such file`);
  if (st.isDirectory()) throw new RangeError(`${what} is a directory; give a file`);
}
