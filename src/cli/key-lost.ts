import type { LedgerEntry } from '../clients/registry/keystore.ts';
import { terminalLine } from './terminal-text.ts';

/** A key-lost entry, said loudly on stderr (the registrar's message says how it was lost): by `registry add`, `registry rekey` and `search --register` alike. */
export function reportKeyLost(e: LedgerEntry): void {
  process.stderr.write(`powprime: KEY LOST for ${e.prime}: ${terminalLine(e.message ?? 'the registry holds it but its key was never stored')}\n`);
}
