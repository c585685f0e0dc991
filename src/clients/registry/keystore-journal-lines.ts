/**
 * The journal's lines, as bytes: a header line naming the journal's
 * generation, then one record a line (a ledger entry as JSON); a line of
 * blanks is room kept on the disk for the record to come (see
 * KeyJournal.append). Encoding and decoding only; keystore-journal.ts does
 * the file's I/O and keeps its place in it.
 */
import { readSync } from 'node:fs';
import { StateFileCorruptError } from '../errors.ts';
import { entryProblem, type LedgerEntry } from './ledger.ts';

const HEADER = 'powprime keystore journal';

/** Bytes of room kept for a registry answer: one with its three keys is well under 1 KiB. */
export const RESERVE = 2048;

/** Up to `length` bytes of `fd` from `from` (fewer at the end of the file): readSync may return less than asked. */
export function readAt(fd: number, from: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, from + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

export function headerLine(generation: string): Buffer {
  return Buffer.from(`${JSON.stringify({ journal: HEADER, generation })}\n`);
}

/** The generation a header line names, or null when the line is not a journal header. */
export function parseHeader(text: string): string | null {
  try {
    const h = JSON.parse(text) as { journal?: unknown; generation?: unknown };
    return h.journal === HEADER && typeof h.generation === 'string' ? h.generation : null;
  } catch {
    return null;
  }
}

/** One record's line; with `reserve`, followed by a room of RESERVE bytes (blanks and a newline). */
export function recordLines(entry: LedgerEntry, reserve: boolean): Buffer {
  const record = Buffer.from(`${JSON.stringify(entry)}\n`);
  return reserve ? Buffer.concat([record, Buffer.from(`${' '.repeat(RESERVE - 1)}\n`)]) : record;
}

/** The entry a record line holds; line `lineNo` of `file` is corrupt when it holds none. */
export function parseRecord(text: string, file: string, lineNo: number): LedgerEntry {
  let e: unknown;
  try {
    e = JSON.parse(text);
  } catch (err) {
    throw new StateFileCorruptError(file, err, `line ${lineNo} is not valid JSON`);
  }
  const problem = entryProblem(e);
  if (problem) throw new StateFileCorruptError(file, undefined, `line ${lineNo} ${problem}`);
  return e as LedgerEntry;
}

/** Whether `buf` is a whole room: blanks, then a newline. */
export function isRoom(buf: Buffer, length: number): boolean {
  return buf.length === length && buf.subarray(0, buf.length - 1).every((b) => b === 0x20) && buf[buf.length - 1] === 0x0a;
}
