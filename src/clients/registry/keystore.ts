/**
 * The registration ledger and key store, one file (mode 0600, atomic
 * writes). A prime is marked `sending` before POST /add and then
 * `registered` (with its keys decrypted at once), `rejected` (with the
 * ident), `registered-elsewhere`, or — when a crash left `sending` and the
 * registry turns out to hold the prime — `key-lost`. Keys are never logged.
 */
import { chmodSync } from 'node:fs';
import { writeFileAtomic, readJsonState } from '../http/state-file.ts';

export type LedgerState = 'sending' | 'registered' | 'rejected' | 'registered-elsewhere' | 'key-lost';

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
}

export class Keystore {
  private entries = new Map<string, LedgerEntry>();

  constructor(readonly file: string) {
    // Keys cannot be rebuilt: a corrupt keystore is an error, never replaced.
    const list = readJsonState(file, 'refuse') as LedgerEntry[] | undefined;
    if (list) {
      for (const e of list) this.entries.set(e.prime, e);
      chmodSync(file, 0o600);
    }
  }

  get(prime: bigint): LedgerEntry | undefined {
    return this.entries.get(prime.toString());
  }

  all(): LedgerEntry[] {
    return [...this.entries.values()];
  }

  put(entry: LedgerEntry): void {
    this.entries.set(entry.prime, entry);
    writeFileAtomic(this.file, JSON.stringify(this.all(), null, 1), 0o600);
  }
}

/** An entry without its secrets, for printing. */
export function redact(e: LedgerEntry): Omit<LedgerEntry, 'key' | 'subkey' | 'totpKey' | 'received'> & { hasKey: boolean } {
  if (e === null || typeof e !== 'object' || typeof e.prime !== 'string') throw new TypeError('entry must be a keystore entry {prime, …}');
  const { key, subkey: _s, totpKey: _t, received, ...rest } = e;
  return { ...rest, hasKey: key !== undefined || received !== undefined };
}
