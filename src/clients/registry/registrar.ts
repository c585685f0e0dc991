/**
 * From a found safe prime to a registered one without losing a key: checked
 * locally first (a prime that fails is never sent), marked `sending` before
 * POST /add, key material decrypted and stored at once, and a `sending` left
 * by a crash resolved on the next run (reported loudly as `key-lost` if the
 * registry holds the prime). A rekey is marked the same way (`rekeying`),
 * since its answer voids the stored key.
 */
import { isSafePrimeSync } from '../../prime/check.ts';
import { b85decode, b85encode } from './base85.ts';
import { decryptKey, encryptKey } from './key-crypto.ts';
import { hostname } from 'node:os';
import { isoTime } from '../clock.ts';
import { Keystore, type LedgerEntry } from './keystore.ts';
import { withoutMark, withoutOwner } from './ledger.ts';
import { JsonError, NotSafePrimeError, RegisteredError, RegistryError, TotpError } from './errors.ts';
import { NetworkError } from '../network-error.ts';
import { PrimeRegistryClient } from './client.ts';
import type { KeyMaterial } from './records.ts';
import { argumentError, show } from '../../validate.ts';

/** What Registrar.registration() did: see there. */
export interface Registration {
  entry: LedgerEntry;
  /** This call sent POST /add, and `entry` holds the registry's answer to it. */
  sent: boolean;
}

export class Registrar {
  constructor(
    readonly client: PrimeRegistryClient,
    readonly keystore: Keystore,
  ) {
    // Checked here, not as "Cannot read properties of null" in the first recover() or register().
    if (!(client instanceof PrimeRegistryClient)) throw argumentError(TypeError, 'client', `must be a PrimeRegistryClient (got ${show(client)})`);
    if (!(keystore instanceof Keystore)) throw argumentError(TypeError, 'keystore', `must be a Keystore (got ${show(keystore)})`);
  }

  /** Marks entries this process is in the middle of. */
  private readonly owner = { pid: process.pid, host: hostname() };

  private now(): number {
    return this.client.clock.now() / 1000;
  }

  /** Keys are encrypted for the 256-second window they were sent in: decrypted with that instant (ms), not today's. */
  private decrypt(material: KeyMaterial, receivedAt: number): Pick<LedgerEntry, 'key' | 'subkey' | 'totpKey' | 'totpTs'> {
    const subkey = b85decode(material.subkey);
    const now = receivedAt / 1000;
    return {
      key: b85encode(decryptKey(material.key, subkey, { now })),
      subkey: material.subkey,
      totpKey: b85encode(decryptKey(material.totp_key, subkey, { now })),
      totpTs: material.totp_ts,
    };
  }

  /**
   * Settles `sending` entries left by a crash: finished from the journaled
   * answer when there is one, else back to unsent, or key-lost when the
   * registry holds the prime. A rekey that got no stored answer is sent
   * again with the stored key: taken, it finishes as the first would have
   * (the registry had not re-keyed); refused, the registry did re-key and
   * the key is lost. Returns the key-lost ones.
   */
  async recover(): Promise<LedgerEntry[]> {
    const lost: LedgerEntry[] = [];
    for (const e of this.keystore.all()) {
      // Another process sharing the keystore is registering it right now: not left by a crash.
      if (Keystore.ownerRunning(e)) continue;
      if (e.received) {
        // An answer (to /add or /rekey) journaled before a crash: its keys are the current ones.
        this.storeKeys(e, e.received.material, e.received.at);
        continue;
      }
      if (e.rekeying !== undefined && e.state === 'registered' && e.key && e.subkey) {
        const settled = await this.finishRekey(e as LedgerEntry & { key: string; subkey: string });
        if (settled.state === 'key-lost') lost.push(settled);
        continue;
      }
      if (e.state !== 'sending') continue;
      const record = await this.client.prime(BigInt(e.prime));
      if (record) {
        const entry: LedgerEntry = { ...withoutOwner(e), state: 'key-lost', at: this.client.clock.now(), message: 'registered, but the run stopped before its key was stored' };
        // Reported by whichever process settles it.
        if (this.replace(e, entry) === entry) lost.push(entry);
      } else {
        this.replace(e, { ...withoutOwner(e), state: 'rejected', ident: 'unsent', message: 'interrupted before the registry answered; it does not hold the prime', at: this.client.clock.now() });
      }
    }
    return lost;
  }

  /** Registers p (or returns what the ledger already knows about it). */
  async register(p: bigint, metadata: Record<string, unknown> = {}): Promise<LedgerEntry> {
    return (await this.registration(p, metadata)).entry;
  }

  /**
   * register(), saying who did it: `sent` when this call sent POST /add and
   * the entry holds the registry's answer to it (registered, rejected,
   * registered-elsewhere); otherwise nothing was sent and the entry is what
   * the keystore held (registered by an earlier run or by another process
   * sharing the keystore, or `sending`: being registered by one now). Counts
   * kept by several processes sharing a keystore then add up: each prime is
   * sent, and counted as sent, by one of them.
   */
  async registration(p: bigint, metadata: Record<string, unknown> = {}): Promise<Registration> {
    const known = this.keystore.get(p);
    if (known && known.state !== 'rejected') return { entry: known, sent: false };
    if (!isSafePrimeSync(p)) throw new NotSafePrimeError(p);
    const base: LedgerEntry = { prime: p.toString(), bits: p.toString(2).length, state: 'sending', at: this.client.clock.now(), owner: this.owner };
    // Claimed under one hold of the keystore's lock: another process sharing it may have marked the
    // prime since the look above, and two processes sending one prime lose the winner's key to the
    // loser's "registered elsewhere". With room kept on the disk for the answer: once the prime is
    // sent, its keys must have a place to go.
    let claimed = false;
    const current = this.keystore.update(
      p,
      (cur) => {
        if (cur && cur.state !== 'rejected') return null;
        claimed = true;
        return base;
      },
      { reserveNext: true },
    );
    if (!claimed && current) return { entry: current, sent: false };
    let material: KeyMaterial;
    try {
      material = await this.client.add(p, metadata);
    } catch (err) {
      if (err instanceof RegisteredError) {
        const e: LedgerEntry = { ...withoutOwner(base), state: 'registered-elsewhere', ident: err.ident ?? 'registered', message: err.serviceMessage ?? '', at: this.client.clock.now() };
        return { entry: this.replace(base, e), sent: true };
      }
      if (err instanceof RegistryError && !(err instanceof TotpError)) {
        const e: LedgerEntry = { ...withoutOwner(base), state: 'rejected', ident: err.ident ?? String(err.status), message: err.serviceMessage ?? '', at: this.client.clock.now() };
        return { entry: this.replace(base, e), sent: true };
      }
      // No answer, or not one that says what happened: stays `sending`, settled by recover().
      throw err;
    }
    return { entry: this.keep(base, material), sent: true };
  }

  /**
   * An answer carrying keys (/add, /rekey) is journaled, synced, before it is
   * decrypted: from then on a crash loses nothing, recover() finishes it.
   */
  private keep(entry: LedgerEntry, material: KeyMaterial): LedgerEntry {
    const receivedAt = this.client.clock.now();
    const journaled: LedgerEntry = { ...entry, received: { material, at: receivedAt }, owner: this.owner };
    this.keystore.put(journaled);
    return this.storeKeys(journaled, material, receivedAt);
  }

  /** The entry registered with the answer's decrypted keys, in place of `entry` (its journaled answer) if the keystore still holds that. */
  private storeKeys(entry: LedgerEntry, material: KeyMaterial, receivedAt: number): LedgerEntry {
    const { received: _journal, owner: _owner, rekeying: _rekeying, ...rest } = entry;
    return this.replace(entry, { ...rest, state: 'registered', ...this.decrypt(material, receivedAt), at: this.client.clock.now() });
  }

  /**
   * Stores `next` in place of `expected` only if the keystore still holds
   * `expected` (the same record), else leaves what it holds and returns that:
   * another process sharing the keystore may have settled the entry since it
   * was read (recover() runs in every command that registers), and a stale
   * verdict written over a newer record would lose its key.
   */
  private replace(expected: LedgerEntry, next: LedgerEntry): LedgerEntry {
    const same = (cur: LedgerEntry | undefined): boolean =>
      cur !== undefined &&
      cur.state === expected.state &&
      cur.at === expected.at &&
      cur.owner?.pid === expected.owner?.pid &&
      cur.owner?.host === expected.owner?.host &&
      cur.received?.at === expected.received?.at;
    // The keystore never drops an entry, and `expected` was read from it: there is one to return.
    return this.keystore.update(BigInt(expected.prime), (cur) => (same(cur) ? next : null)) as LedgerEntry;
  }

  private owned(p: bigint): LedgerEntry & { key: string; subkey: string } {
    const e = this.keystore.get(p);
    if (e?.state !== 'registered' || !e.key || !e.subkey) throw new RangeError(`no stored key for ${p}: it is not registered from this keystore`);
    return e as LedgerEntry & { key: string; subkey: string };
  }

  /** The stored key, encrypted for the current window. */
  private currentBlob(e: { key: string; subkey: string }): string {
    return encryptKey(b85decode(e.key), b85decode(e.subkey), { now: this.now() });
  }

  async note(p: bigint, text: string): Promise<{ success: string; prevNote: string }> {
    const e = this.owned(p);
    return this.client.note(p, () => this.currentBlob(e), text);
  }

  /** New keys for p; a rekey of it left unanswered by a crash is settled first (see recover). */
  async rekey(p: bigint): Promise<LedgerEntry> {
    const e = this.owned(p);
    if (e.rekeying === undefined) return this.sendRekey(e);
    return this.finishRekey(e);
  }

  /**
   * POST /rekey with the stored key, marked first: its answer voids the
   * stored key, so it is journaled before anything else, and an answer that
   * never came leaves the mark for recover(). The mark goes when the request
   * never went out (the key is encrypted as it goes) or the registry refused
   * it; a resend (finishRekey) keeps the first send's time.
   */
  private async sendRekey(e: LedgerEntry & { key: string; subkey: string }): Promise<LedgerEntry> {
    const marked: LedgerEntry = { ...e, rekeying: e.rekeying ?? this.client.clock.now(), owner: this.owner };
    this.keystore.put(marked, { reserveNext: true });
    let sent = false;
    let material: KeyMaterial;
    try {
      material = await this.client.rekey(BigInt(e.prime), () => {
        sent = true;
        return this.currentBlob(e);
      });
    } catch (err) {
      // A fresh rekey refused, or never sent: the registry did not re-key on it.
      // (A resend's refusal is finishRekey's to read.)
      if (e.rekeying === undefined && (!sent || err instanceof RegistryError || (err instanceof NetworkError && !err.connected))) {
        this.keystore.update(BigInt(e.prime), (cur) => (cur !== undefined && cur.rekeying === marked.rekeying && cur.owner?.pid === process.pid ? withoutMark(cur) : null));
      }
      throw err;
    }
    return this.keep(marked, material);
  }

  /**
   * A rekey left without a stored answer (see recover), claimed first so that
   * one process settles it: sent again with the stored key. Taken, it
   * finishes as the first would have; refused as a bad key (ident json), the
   * registry did re-key then, and the entry is key-lost (the old key kept
   * beside it, in case the refusal meant something else). Returns the entry
   * as it then stands.
   */
  private async finishRekey(e: LedgerEntry & { key: string; subkey: string }): Promise<LedgerEntry> {
    const p = BigInt(e.prime);
    const claimed = this.keystore.update(p, (cur) => (cur?.state === 'registered' && cur.rekeying === e.rekeying && !Keystore.ownerRunning(cur) ? { ...cur, owner: this.owner } : null));
    if (claimed?.owner?.pid !== process.pid || claimed.rekeying !== e.rekeying) {
      if (claimed?.rekeying !== undefined && Keystore.ownerRunning(claimed)) throw new RangeError(`${p} is being rekeyed by another process (pid ${claimed.owner!.pid} on ${claimed.owner!.host})`);
      return claimed ?? e;
    }
    const sentAt = e.rekeying!;
    try {
      return await this.sendRekey(claimed as LedgerEntry & { key: string; subkey: string });
    } catch (err) {
      if (!(err instanceof JsonError)) throw err;
      const lostKey = this.keystore.update(p, (cur) =>
        cur?.rekeying === sentAt && cur.owner?.pid === process.pid
          ? {
              ...withoutMark(cur),
              state: 'key-lost',
              at: this.client.clock.now(),
              message: `a rekey sent at ${isoTime(sentAt)} got no stored answer, and the registry now refuses the stored key (${err.serviceMessage ?? err.ident}): it re-keyed then; the old key is kept in this entry`,
            }
          : null,
      );
      return lostKey ?? e;
    }
  }
}
