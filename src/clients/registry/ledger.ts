/**
 * The ledger: what the keystore holds about each prime (its state, its keys),
 * the checks an entry read back must pass, and the snapshot file (`keys.json`,
 * a JSON list of entries, written atomically, mode 0600) the entries are
 * folded into. The journal (keystore-journal.ts) records the changes made
 * since; keystore.ts puts the two together under the keystore's lock.
 */
import { chmodSync } from 'node:fs';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import { readJsonState } from '../http/state-file.ts';

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
export function entryProblem(e: unknown): string | undefined {
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

/** The entries as last read (the snapshot, then the journal's records over it), one per prime. */
export class Ledger {
  private entries = new Map<string, LedgerEntry>();

  constructor(readonly file: string) {}

  /** Reads the snapshot (none yet: no entries). Keys cannot be rebuilt: a corrupt snapshot is an error, never replaced. */
  load(): void {
    const list = readJsonState(this.file, 'refuse', snapshotProblem) as LedgerEntry[] | undefined;
    this.entries = new Map((list ?? []).map((e) => [e.prime, e]));
    if (list) chmodSync(this.file, 0o600);
  }

  /** Writes every entry as the new snapshot, atomically. */
  save(): void {
    writeFileAtomic(this.file, JSON.stringify([...this.entries.values()], null, 1), 0o600);
  }

  get(prime: string): LedgerEntry | undefined {
    return this.entries.get(prime);
  }

  set(entry: LedgerEntry): void {
    this.entries.set(entry.prime, entry);
  }

  values(): LedgerEntry[] {
    return [...this.entries.values()];
  }

  get size(): number {
    return this.entries.size;
  }
}

/** An entry without its secrets, for printing. */
export function redact(e: LedgerEntry): Omit<LedgerEntry, 'key' | 'subkey' | 'totpKey' | 'received' | 'owner'> & { hasKey: boolean } {
  if (e === null || typeof e !== 'object' || typeof e.prime !== 'string') throw new TypeError('entry must be a keystore entry {prime, …}');
  const { key, subkey: _s, totpKey: _t, received, owner: _o, ...rest } = e;
  return { ...rest, hasKey: key !== undefined || received !== undefined };
}

/** The entry without its owner: no process is in the middle of it any more. */
export function withoutOwner(e: LedgerEntry): LedgerEntry {
  const { owner: _owner, ...rest } = e;
  return rest;
}

/** The entry without its rekey mark and owner: a rekey that did not happen, or is finished. */
export function withoutMark(e: LedgerEntry): LedgerEntry {
  const { rekeying: _rekeying, owner: _owner, ...rest } = e;
  return rest;
}
