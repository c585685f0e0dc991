/**
 * The keystore's journal (`keys.json.journal`): the changes to the ledger
 * since its snapshot, one JSON entry a line after a header line naming the
 * journal's generation. A change is one appended, fsynced line, whatever the
 * keystore's size; an entry's state is the last record for its prime. A line
 * torn by a crash mid-append was never acknowledged and is cut off at the next
 * read. Folding empties the journal, and the next record starts a new
 * generation: a reader that finds another generation, or none, knows the
 * snapshot has moved on. The caller holds the keystore's lock throughout.
 */
import { chmodSync, closeSync, fstatSync, ftruncateSync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { StateFileCorruptError } from '../errors.ts';
import { headerLine, isRoom, parseHeader, parseRecord, RESERVE, readAt, recordLines } from './keystore-journal-lines.ts';
import { syncFolderSync, syncSync, writeAllSync } from '../../fs/durable-write.ts';
import type { LedgerEntry } from './ledger.ts';

export class KeyJournal {
  /** The generation read, its bytes applied, and its records. */
  private generation: string | null = null;
  private offset = 0;
  private count = 0;
  /** The journal's line number of the next record, for messages. */
  private lineNo = 2;
  /** The room this process left after its last record (append's `reserve`), by byte range. */
  private room: { at: number; end: number } | null = null;

  constructor(readonly file: string) {}

  /** Records in the journal as this process knows it: what a fold would take into the snapshot. */
  get records(): number {
    return this.count;
  }

  /** Forgets what was read, for a fresh snapshot: the next read() starts from the header. */
  forget(): void {
    this.generation = null;
    this.offset = 0;
    this.count = 0;
    // A room left in a journal another process has since folded is gone: its bytes may now be another's record.
    this.room = null;
  }

  /**
   * Hands `apply` each record past what was read (only those bytes are read).
   * False when another process folded the journal since it was last read: the
   * snapshot is to be read again, then the journal after forget().
   */
  read(apply: (entry: LedgerEntry) => void): boolean {
    let fd: number;
    try {
      fd = openSync(this.file, 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return this.generation === null;
    }
    try {
      const size = fstatSync(fd).size;
      const head = readAt(fd, 0, Math.min(size, 512));
      const firstEnd = head.indexOf(0x0a);
      const header = firstEnd < 0 ? null : parseHeader(head.subarray(0, firstEnd).toString('utf8'));
      if (header === null) {
        if (firstEnd >= 0 || size >= 512) throw new StateFileCorruptError(this.file, undefined, 'line 1 is not a keystore journal header');
        // Empty, or a header torn by a crash right after a fold: nothing in it.
        if (size > 0) {
          ftruncateSync(fd, 0);
          fsyncSync(fd);
        }
        return this.generation === null;
      }
      if (this.generation !== header || size < this.offset) {
        if (this.generation !== null) return false;
        this.generation = header;
        this.offset = firstEnd + 1;
        this.lineNo = 2;
        this.count = 0;
      }
      this.applyTail(fd, size, apply);
      return true;
    } finally {
      closeSync(fd);
    }
  }

  /** Applies the whole records from `offset` to `size`, cutting off a torn last one. */
  private applyTail(fd: number, size: number, apply: (entry: LedgerEntry) => void): void {
    const tail = readAt(fd, this.offset, size - this.offset);
    const end = tail.lastIndexOf(0x0a) + 1;
    if (end < tail.length) {
      // A record torn by a crash mid-append: never acknowledged, so dropped.
      ftruncateSync(fd, this.offset + end);
      fsyncSync(fd);
    }
    const texts = tail.subarray(0, end).toString('utf8').split('\n');
    texts.pop(); // after the last newline: nothing
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i]!;
      if (text.trim() !== '') {
        apply(parseRecord(text, this.file, this.lineNo));
        this.count++;
      } else if (i === texts.length - 1) {
        // Room a registration keeps for its answer (see append): left unread while it is the last line, so the answer that replaces it is read next time.
        break;
      }
      // The place read, the line number and the count move together, line by
      // line: a bad line stops the read before it moves them, so the next
      // read starts at that line and names it by its own number again.
      this.offset += Buffer.byteLength(text) + 1;
      this.lineNo++;
    }
  }

  /**
   * Appends one record (starting a journal when there is none, after
   * `starting()`); a failed append is cut back. With `reserve`, a blank line follows
   * the record, written and synced with it: room on the disk for the record
   * that comes next (the registry's answer, which must not meet a full disk
   * once the prime is sent). The next append, if nothing was appended after
   * the room, cuts it off and writes in its place.
   */
  append(entry: LedgerEntry, reserve: boolean, starting: () => void): void {
    // Made with the keystore's mode (its name synced into the folder, or a power loss could drop every record in it), then opened to write at given places (a room is written over).
    try {
      closeSync(openSync(this.file, 'wx', 0o600));
      syncFolderSync(path.dirname(this.file), this.file, `${this.file} is made but empty; this change is not stored`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const fd = openSync(this.file, 'r+');
    try {
      let size = fstatSync(fd).size;
      const room = this.room;
      this.room = null;
      // Cut only while the room holds nothing but its blanks: nothing of another process's is cut.
      if (room && size === room.end && isRoom(readAt(fd, room.at, room.end - room.at), room.end - room.at)) {
        ftruncateSync(fd, room.at);
        size = room.at;
        this.offset = room.at;
      }
      const outcome = `${this.file} keeps every earlier record; this change is not stored`;
      const write = (bytes: Buffer): void => {
        try {
          writeAllSync(fd, bytes, this.file, outcome, size);
          syncSync(fd, this.file, outcome);
        } catch (err) {
          try {
            ftruncateSync(fd, size);
            fsyncSync(fd);
          } catch {
            // A torn record is dropped at the next read anyway.
          }
          throw err;
        }
        size += bytes.length;
      };
      if (size === 0) {
        if (this.generation === null) starting();
        const generation = randomBytes(8).toString('hex');
        write(headerLine(generation));
        this.generation = generation;
        this.count = 0;
        this.lineNo = 2;
      }
      write(recordLines(entry, reserve));
      this.offset = reserve ? size - RESERVE : size;
      if (reserve) this.room = { at: size - RESERVE, end: size };
      this.count++;
      this.lineNo++;
      chmodSync(this.file, 0o600);
    } finally {
      closeSync(fd);
    }
  }

  /** Empties the journal once its records are in the snapshot; the next record starts a new generation. */
  empty(): void {
    const fd = openSync(this.file, 'r+');
    try {
      ftruncateSync(fd, 0);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.forget();
  }
}
