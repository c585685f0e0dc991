/**
 * The registration ledger and key store (mode 0600). A prime is marked
 * `sending` before POST /add and then `registered` (with its keys decrypted at
 * once), `rejected` (with the ident), `registered-elsewhere`, or — when a
 * crash left `sending` and the registry turns out to hold the prime —
 * `key-lost`. Keys are never logged.
 *
 * On disk: a snapshot (`keys.json`, a JSON list of entries, written
 * atomically) and beside it an append-only journal (`keys.json.journal`, one
 * JSON entry a line after a header line naming its generation). A change is
 * one appended, fsynced line, whatever the keystore's size; an entry's state
 * is the last record for its prime. Any number of processes share one
 * keystore: every operation takes the keystore's lock (`keys.json.lock`, an
 * OS lock where the addon loads), reads what other processes appended since
 * it last looked, and only then acts. Now and then (and when a command ends)
 * the journal is folded into a new snapshot under the lock and emptied under
 * a new generation; a crash between the two only replays records the
 * snapshot already holds.
 */
import { chmodSync, closeSync, fstatSync, ftruncateSync, fsyncSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import { readJsonState } from '../http/state-file.ts';
import { StateFileCorruptError } from '../errors.ts';
import { FileLockedError, WriteFailedError } from '../../errors.ts';
import { lockHolderText, lockWaitSync, processAlive } from '../../fs/file-lock.ts';
import { syncFolderSync, syncSync, writeAllSync } from '../../fs/durable-write.ts';
import { argumentError, checkOptions, optionNames, show } from '../../validate.ts';
import { makeFolderSync } from '../../fs/make-folder.ts';

export type LedgerState = 'sending' | 'registered' | 'rejected' | 'registered-elsewhere' | 'key-lost';
const STATES: readonly LedgerState[] = ['sending', 'registered', 'rejected', 'registered-elsewhere', 'key-lost'];

export interface LedgerEntry {
  prime: string;
  bits: number;
  state: LedgerState;
  /** ms since the epoch of the last change. */
  at: number;
  ident?: string;
  message?: string;
  /** base85 of the decrypted prime key. */
  key?: string;
  /** base85 of the 64-byte subkey. */
  subkey?: string;
  /** base85 of the decrypted TOTP key. */
  totpKey?: string;
  totpTs?: number;
  /**
   * The registry's /add answer exactly as received (keys still encrypted),
   * journaled before anything else is done with it, and when (ms): a crash
   * before the decrypted keys are stored leaves them here, and the next run
   * finishes the entry from it. Removed once the entry is `registered`.
   */
  received?: { material: { key: string; subkey: string; totp_key: string; totp_ts: number }; at: number };
  /**
   * When (ms) a POST /rekey of this `registered` entry was sent, until its
   * answer is journaled or the registry refuses it: a crash or a lost answer
   * in between leaves the stored key in doubt (the registry may have
   * re-keyed), and the next recover() settles it.
   */
  rekeying?: number;
  /**
   * The process working on a `sending`, `received` or `rekeying` entry: while it runs,
   * another process sharing the keystore leaves the entry to it instead of
   * settling it as left by a crash.
   */
  owner?: { pid: number; host: string };
}

const DECIMAL = /^[1-9][0-9]*$/;

function describe(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'a list';
  return typeof x === 'object' ? 'an object' : `${typeof x} ${JSON.stringify(x)}`;
}

/** What is wrong with one entry, or undefined. */
function entryProblem(e: unknown): string | undefined {
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return `is ${describe(e)}, not an entry`;
  const o = e as Record<string, unknown>;
  if (typeof o.prime !== 'string' || !DECIMAL.test(o.prime)) return `has no decimal "prime" (found ${describe(o.prime)})`;
  if (!Number.isSafeInteger(o.bits) || (o.bits as number) < 1) return `(prime ${o.prime}) has no bit length`;
  if (!STATES.includes(o.state as LedgerState)) return `(prime ${o.prime}) has an unknown state ${JSON.stringify(o.state)}`;
  if (typeof o.at !== 'number' || !Number.isFinite(o.at)) return `(prime ${o.prime}) has no time`;
  for (const k of ['ident', 'message', 'key', 'subkey', 'totpKey'] as const) {
    if (o[k] !== undefined && typeof o[k] !== 'string') return `(prime ${o.prime}) has a "${k}" that is not a string`;
  }
  for (const k of ['totpTs', 'rekeying'] as const) {
    if (o[k] !== undefined && typeof o[k] !== 'number') return `(prime ${o.prime}) has a "${k}" that is not a number`;
  }
  if (o.received !== undefined) {
    const r = o.received as { material?: Record<string, unknown>; at?: unknown } | null;
    const m = r?.material;
    if (!m || typeof r.at !== 'number' || typeof m.key !== 'string' || typeof m.subkey !== 'string' || typeof m.totp_key !== 'string' || typeof m.totp_ts !== 'number') {
      return `(prime ${o.prime}) has a journaled answer of the wrong shape`;
    }
  }
  if (o.owner !== undefined) {
    const w = o.owner as { pid?: unknown; host?: unknown } | null;
    if (!w || !Number.isSafeInteger(w.pid) || typeof w.host !== 'string') return `(prime ${o.prime}) has an owner of the wrong shape`;
  }
  return undefined;
}

/** The snapshot's shape: a list of entries, one per prime. */
function snapshotProblem(x: unknown): string | undefined {
  if (!Array.isArray(x)) return `is ${describe(x)}, not a list of keystore entries`;
  const seen = new Map<string, number>();
  for (let i = 0; i < x.length; i++) {
    const p = entryProblem(x[i]);
    if (p) return `entry ${i + 1} ${p}`;
    const prime = (x[i] as LedgerEntry).prime;
    const before = seen.get(prime);
    if (before !== undefined) return `has two entries for prime ${prime} (entries ${before + 1} and ${i + 1}); which holds its key is unknown`;
    seen.set(prime, i);
  }
  return undefined;
}

const HEADER = 'powprime keystore journal';

/** Bytes of room kept for a registry answer: one with its three keys is well under 1 KiB. */
const RESERVE = 2048;

/** Journal records before it is folded into the snapshot: at least this many, and at least one per entry (O(1) a change, amortised). */
const COMPACT_MIN = 64;

export interface KeystoreOptions {
  /** How long an operation waits for another process's hold on the keystore (default 60 s). */
  lockWaitMs?: number;
}

/** Every option of Keystore: any other key is refused. */
export const KEYSTORE_OPTIONS = optionNames<KeystoreOptions>()(['lockWaitMs']);

/** Up to `length` bytes of `fd` from `from` (fewer at the end of the file): readSync may return less than asked. */
function readAt(fd: number, from: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, from + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

export class Keystore {
  private entries = new Map<string, LedgerEntry>();
  readonly journalFile: string;
  private readonly lockFile: string;
  private readonly lockWaitMs: number;
  /** The journal generation read, its bytes applied, and its records. */
  private generation: string | null = null;
  private offset = 0;
  private records = 0;
  /** The journal's line number of the next record, for messages. */
  private lineNo = 2;
  /** The room this process left after its last record (append's `reserve`), by byte range. */
  private room: { at: number; end: number } | null = null;

  constructor(
    readonly file: string,
    opts: KeystoreOptions = {},
  ) {
    if (typeof file !== 'string' || file === '') throw argumentError(TypeError, 'file', `must be a non-empty path (got ${show(file)})`);
    const { lockWaitMs } = checkOptions('opts', opts, 'Keystore', KEYSTORE_OPTIONS) as KeystoreOptions;
    if (lockWaitMs !== undefined && typeof lockWaitMs !== 'number') throw argumentError(TypeError, 'lockWaitMs', `must be a number (got ${show(lockWaitMs)})`);
    if (lockWaitMs !== undefined && !(lockWaitMs >= 0)) throw argumentError(RangeError, 'lockWaitMs', `must be a number of milliseconds ≥ 0 (got ${show(lockWaitMs)})`);
    this.journalFile = `${file}.journal`;
    this.lockFile = `${file}.lock`;
    this.lockWaitMs = lockWaitMs ?? 60_000;
    this.locked(() => this.reload());
  }

  private locked<T>(fn: () => T): T {
    makeFolderSync(path.dirname(this.file), 0o700);
    const lock = lockWaitSync(this.lockFile, this.file, this.lockWaitMs);
    if (!lock) throw new FileLockedError(this.file, lockHolderText(this.lockFile));
    try {
      return fn();
    } finally {
      lock.release();
    }
  }

  /** Snapshot, then the whole journal. Keys cannot be rebuilt: a corrupt keystore is an error, never replaced. */
  private reload(): void {
    const list = readJsonState(this.file, 'refuse', snapshotProblem) as LedgerEntry[] | undefined;
    this.entries = new Map((list ?? []).map((e) => [e.prime, e]));
    if (list) chmodSync(this.file, 0o600);
    this.generation = null;
    this.offset = 0;
    this.records = 0;
    // A room left in a journal another process has since folded is gone: its bytes may now be another's record.
    this.room = null;
    this.readJournal();
  }

  /** Applies what the journal holds past what was read (only those bytes are read); reloads when it was folded meanwhile. */
  private readJournal(): void {
    let fd: number;
    try {
      fd = openSync(this.journalFile, 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (this.generation !== null) this.reload();
      return;
    }
    const read = (from: number, length: number): Buffer => readAt(fd, from, length);
    try {
      const size = fstatSync(fd).size;
      const head = read(0, Math.min(size, 512));
      const firstEnd = head.indexOf(0x0a);
      const header = firstEnd < 0 ? null : this.parseHeader(head.subarray(0, firstEnd).toString('utf8'));
      if (header === null) {
        if (firstEnd >= 0 || size >= 512) throw new StateFileCorruptError(this.journalFile, undefined, 'line 1 is not a keystore journal header');
        // Empty, or a header torn by a crash right after a fold: nothing in it.
        if (size > 0) {
          ftruncateSync(fd, 0);
          fsyncSync(fd);
        }
        if (this.generation !== null) this.reload();
        return;
      }
      if (this.generation !== header || size < this.offset) {
        if (this.generation !== null) {
          // Folded by another process: start again from the new snapshot.
          this.reload();
          return;
        }
        this.generation = header;
        this.offset = firstEnd + 1;
        this.lineNo = 2;
        this.records = 0;
      }
      const tail = read(this.offset, size - this.offset);
      const end = tail.lastIndexOf(0x0a) + 1;
      if (end < tail.length) {
        // A record torn by a crash mid-append: never acknowledged, so dropped.
        ftruncateSync(fd, this.offset + end);
        fsyncSync(fd);
      }
      const texts = tail.subarray(0, end).toString('utf8').split('\n');
      texts.pop(); // after the last newline: nothing
      let used = 0;
      for (let i = 0; i < texts.length; i++) {
        const text = texts[i]!;
        if (text.trim() === '') {
          // Room a registration keeps for its answer (see append): left unread while it is the last line, so the answer that replaces it is read next time.
          if (i === texts.length - 1) break;
          used += Buffer.byteLength(text) + 1;
          this.lineNo++;
          continue;
        }
        used += Buffer.byteLength(text) + 1;
        let e: unknown;
        try {
          e = JSON.parse(text);
        } catch (err) {
          throw new StateFileCorruptError(this.journalFile, err, `line ${this.lineNo} is not valid JSON`);
        }
        const problem = entryProblem(e);
        if (problem) throw new StateFileCorruptError(this.journalFile, undefined, `line ${this.lineNo} ${problem}`);
        this.entries.set((e as LedgerEntry).prime, e as LedgerEntry);
        this.records++;
        this.lineNo++;
      }
      this.offset += used;
    } finally {
      closeSync(fd);
    }
  }

  private parseHeader(text: string): string | null {
    try {
      const h = JSON.parse(text) as { journal?: unknown; generation?: unknown };
      return h.journal === HEADER && typeof h.generation === 'string' ? h.generation : null;
    } catch {
      return null;
    }
  }

  /**
   * Appends one record (starting a journal, and a snapshot, when there are
   * none); a failed append is cut back. With `reserve`, a blank line follows
   * the record, written and synced with it: room on the disk for the record
   * that comes next (the registry's answer, which must not meet a full disk
   * once the prime is sent). The next append, if nothing was appended after
   * the room, cuts it off and writes in its place.
   */
  private append(entry: LedgerEntry, reserve = false): void {
    // Made with the keystore's mode (its name synced into the folder, or a power loss could drop every record in it), then opened to write at given places (a room is written over).
    try {
      closeSync(openSync(this.journalFile, 'wx', 0o600));
      syncFolderSync(path.dirname(this.journalFile), this.journalFile, `${this.journalFile} is made but empty; this change is not stored`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const fd = openSync(this.journalFile, 'r+');
    try {
      let size = fstatSync(fd).size;
      const room = this.room;
      this.room = null;
      if (room && size === room.end && this.isBlank(fd, room)) {
        ftruncateSync(fd, room.at);
        size = room.at;
        this.offset = room.at;
      }
      const outcome = `${this.journalFile} keeps every earlier record; this change is not stored`;
      const write = (bytes: Buffer): void => {
        try {
          writeAllSync(fd, bytes, this.journalFile, outcome, size);
          syncSync(fd, this.journalFile, outcome);
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
        // A snapshot from the start, so the keystore is a file of entries even before the first fold.
        if (this.generation === null && this.entries.size === 0) writeFileAtomic(this.file, '[]', 0o600);
        const generation = randomBytes(8).toString('hex');
        write(Buffer.from(`${JSON.stringify({ journal: HEADER, generation })}\n`));
        this.generation = generation;
        this.records = 0;
        this.lineNo = 2;
      }
      const record = Buffer.from(`${JSON.stringify(entry)}\n`);
      write(reserve ? Buffer.concat([record, Buffer.from(`${' '.repeat(RESERVE - 1)}\n`)]) : record);
      this.offset = reserve ? size - RESERVE : size;
      if (reserve) this.room = { at: size - RESERVE, end: size };
      this.records++;
      this.lineNo++;
      chmodSync(this.journalFile, 0o600);
    } finally {
      closeSync(fd);
    }
  }

  /** Whether the journal still holds only blanks where this process left its room (nothing of another process's is cut). */
  private isBlank(fd: number, room: { at: number; end: number }): boolean {
    const buf = readAt(fd, room.at, room.end - room.at);
    return buf.length === room.end - room.at && buf.subarray(0, buf.length - 1).every((b) => b === 0x20) && buf[buf.length - 1] === 0x0a;
  }

  /** Folds the journal into the snapshot (under the lock): snapshot written atomically, then the journal emptied. */
  private fold(): void {
    if (this.records === 0) return;
    writeFileAtomic(this.file, JSON.stringify([...this.entries.values()], null, 1), 0o600);
    const fd = openSync(this.journalFile, 'r+');
    try {
      ftruncateSync(fd, 0);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.generation = null;
    this.offset = 0;
    this.records = 0;
    this.room = null;
  }

  get(prime: bigint): LedgerEntry | undefined {
    return this.locked(() => {
      this.readJournal();
      return this.entries.get(prime.toString());
    });
  }

  all(): LedgerEntry[] {
    return this.locked(() => {
      this.readJournal();
      return [...this.entries.values()];
    });
  }

  /**
   * Stores one entry: on disk (one journal record, synced) when this returns.
   * `reserveNext` keeps room on the disk for the next record (put it just
   * before asking the registry for keys: the answer then has room).
   */
  put(entry: LedgerEntry, opts: { reserveNext?: boolean } = {}): void {
    this.locked(() => {
      this.readJournal();
      this.append(entry, opts.reserveNext === true);
      this.entries.set(entry.prime, entry);
      if (this.records >= Math.max(COMPACT_MIN, this.entries.size)) {
        try {
          this.fold();
        } catch (err) {
          // The record is safe in the journal; a fold that fails (a full disk) is tried again later.
          if (!(err instanceof WriteFailedError)) throw err;
        }
      }
    });
  }

  /**
   * Reads `prime`'s entry as the keystore holds it now and, under the same
   * lock, stores what `change` makes of it (null: nothing). Returns the entry
   * as it then stands. For a step that must not race another process (who
   * settles a mark left by a crash). `reserveNext` as for put().
   */
  update(prime: bigint, change: (current: LedgerEntry | undefined) => LedgerEntry | null, opts: { reserveNext?: boolean } = {}): LedgerEntry | undefined {
    return this.locked(() => {
      this.readJournal();
      const next = change(this.entries.get(prime.toString()));
      if (next === null) return this.entries.get(prime.toString());
      this.append(next, opts.reserveNext === true);
      this.entries.set(next.prime, next);
      return next;
    });
  }

  /** Folds the journal into the snapshot; commands call it as they end, so keys.json alone holds every entry. */
  compact(): void {
    this.locked(() => {
      this.readJournal();
      this.fold();
    });
  }

  /**
   * Compacts as a command ends. A disk too full for the new snapshot is not
   * an error: every record is already safe in the journal, and the next
   * command folds it.
   */
  close(): void {
    try {
      this.compact();
    } catch (err) {
      if (!(err instanceof WriteFailedError)) throw err;
    }
  }

  /** Whether an entry in mid-registration belongs to a process that still runs (not this one: its own are never left half-done). */
  static ownerRunning(e: LedgerEntry): boolean {
    return e.owner !== undefined && e.owner.pid !== process.pid && processAlive(e.owner.pid, e.owner.host);
  }
}

/** An entry without its secrets, for printing. */
export function redact(e: LedgerEntry): Omit<LedgerEntry, 'key' | 'subkey' | 'totpKey' | 'received' | 'owner'> & { hasKey: boolean } {
  if (e === null || typeof e !== 'object' || typeof e.prime !== 'string') throw new TypeError('entry must be a keystore entry {prime, …}');
  const { key, subkey: _s, totpKey: _t, received, owner: _o, ...rest } = e;
  return { ...rest, hasKey: key !== undefined || received !== undefined };
}
