/**
 * The registration ledger and key store (mode 0600). A prime is marked
 * `sending` before POST /add and then `registered` (with its keys decrypted at
 * once), `rejected` (with the ident), `registered-elsewhere`, or — when a
 * crash left `sending` and the registry turns out to hold the prime —
 * `key-lost`. Keys are never logged.
 *
 * On disk: a snapshot (`keys.json`, ledger.ts) and beside it an append-only
 * journal (`keys.json.journal`, keystore-journal.ts) of the changes since.
 * Any number of processes share one keystore: every operation takes the
 * keystore's lock (`keys.json.lock`, an OS lock where the addon loads), reads
 * what other processes appended since it last looked, and only then acts.
 * Now and then (and when a command ends) the journal is folded into a new
 * snapshot under the lock and emptied under a new generation; a crash between
 * the two only replays records the snapshot already holds.
 */
import path from 'node:path';
import { WriteFailedError } from '../../errors.ts';
import { processAlive } from '../../fs/lock-note.ts';
import { lockWaitSync } from '../../fs/lock-wait.ts';
import { argumentError, show } from '../../validate.ts';
import { checkOptions, optionNames } from '../../option-checks.ts';
import { makeFolderSync } from '../../fs/make-folder.ts';
import { pathKind } from '../../fs/path-kind.ts';
import { KeyJournal } from './keystore-journal.ts';
import { Ledger, type LedgerEntry } from './ledger.ts';

export { redact } from './ledger.ts';
export type { LedgerEntry, LedgerState } from './ledger.ts';

/** Journal records before it is folded into the snapshot: at least this many, and at least one per entry (O(1) a change, amortised). */
const COMPACT_MIN = 64;

export interface KeystoreOptions {
  /** How long an operation waits for another process's hold on the keystore (default 60 s). */
  lockWaitMs?: number;
}

/** Every option of Keystore: any other key is refused. */
export const KEYSTORE_OPTIONS = optionNames<KeystoreOptions>()(['lockWaitMs']);

export class Keystore {
  private readonly ledger: Ledger;
  private readonly journal: KeyJournal;
  readonly journalFile: string;
  private readonly lockFile: string;
  private readonly lockWaitMs: number;

  constructor(
    readonly file: string,
    opts: KeystoreOptions = {},
  ) {
    if (typeof file !== 'string' || file === '') throw argumentError(TypeError, 'file', `must be a non-empty path (got ${show(file)})`);
    const kind = pathKind(file);
    if (kind === 'folder' || kind === 'blocked')
      throw argumentError(RangeError, 'file', `must be the keystore's file path (${show(file)} ${kind === 'folder' ? 'is a folder' : 'runs through a file'})`);
    const { lockWaitMs } = checkOptions('opts', opts, 'Keystore', KEYSTORE_OPTIONS) as KeystoreOptions;
    if (lockWaitMs !== undefined && typeof lockWaitMs !== 'number') throw argumentError(TypeError, 'lockWaitMs', `must be a number (got ${show(lockWaitMs)})`);
    if (lockWaitMs !== undefined && !(lockWaitMs >= 0)) throw argumentError(RangeError, 'lockWaitMs', `must be a number of milliseconds ≥ 0 (got ${show(lockWaitMs)})`);
    this.ledger = new Ledger(file);
    this.journal = new KeyJournal(`${file}.journal`);
    this.journalFile = this.journal.file;
    this.lockFile = `${file}.lock`;
    this.lockWaitMs = lockWaitMs ?? 60_000;
    this.locked(() => this.reload());
  }

  private locked<T>(fn: () => T): T {
    makeFolderSync(path.dirname(this.file), 0o700);
    const lock = lockWaitSync(this.lockFile, this.file, this.lockWaitMs);
    try {
      return fn();
    } finally {
      lock.release();
    }
  }

  /** Snapshot, then the whole journal. */
  private reload(): void {
    this.ledger.load();
    this.journal.forget();
    this.readJournal();
  }

  /** Applies what the journal holds past what was read; starts again from the snapshot when another process folded it meanwhile. */
  private readJournal(): void {
    if (!this.journal.read((e) => this.ledger.set(e))) this.reload();
  }

  /** Appends one record (see KeyJournal.append) and applies it. */
  private append(entry: LedgerEntry, reserve: boolean): void {
    // A snapshot from the start, so the keystore is a file of entries even before the first fold.
    this.journal.append(entry, reserve, () => {
      if (this.ledger.size === 0) this.ledger.save();
    });
    this.ledger.set(entry);
  }

  /** Folds the journal into the snapshot (under the lock): snapshot written atomically, then the journal emptied. */
  private fold(): void {
    if (this.journal.records === 0) return;
    this.ledger.save();
    this.journal.empty();
  }

  get(prime: bigint): LedgerEntry | undefined {
    return this.locked(() => {
      this.readJournal();
      return this.ledger.get(prime.toString());
    });
  }

  all(): LedgerEntry[] {
    return this.locked(() => {
      this.readJournal();
      return this.ledger.values();
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
      if (this.journal.records >= Math.max(COMPACT_MIN, this.ledger.size)) {
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
      const next = change(this.ledger.get(prime.toString()));
      if (next === null) return this.ledger.get(prime.toString());
      this.append(next, opts.reserveNext === true);
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
