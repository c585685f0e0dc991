/** `search --register`: each found prime registered with the prime registry, its keys kept. */
import type { Registrar } from '../clients/registry/registrar.ts';
import { terminalLine } from './terminal-text.ts';
import { reportKeyLost } from './registry.ts';

/** Registration of found primes: requirements read once, tallies for the summary. */
export class Registering {
  readonly tally = { registered: 0, 'registered-elsewhere': 0, rejected: 0, 'key-lost': 0, 'below-requirements': 0 };
  private minBits: number | null = null;

  constructor(
    private readonly reg: Registrar,
    private readonly bits: number,
  ) {}

  async start(): Promise<void> {
    for (const e of await this.reg.recover()) {
      this.tally['key-lost']++;
      reportKeyLost(e);
    }
    this.minBits = (await this.reg.client.requirements(this.bits)).bits;
  }

  /** Folds the keystore's journal into its snapshot as the command ends. */
  close(): void {
    this.reg.keystore.close();
  }

  /** Registers one prime (or learns it is known); returns its ledger state. */
  async register(prime: bigint): Promise<string> {
    if (this.minBits !== null && this.bits < this.minBits) {
      this.tally['below-requirements']++;
      return 'below-requirements';
    }
    const before = this.reg.keystore.get(prime)?.state;
    const e = await this.reg.register(prime);
    if (before === e.state) return e.state; // known from an earlier run: counted then
    this.tally[e.state === 'sending' ? 'rejected' : e.state]++;
    // The ident and message are the registry's text: escaped for the terminal.
    if (e.state === 'rejected') process.stderr.write(`powprime: ${prime} rejected (${terminalLine(`${e.ident}${e.message ? `: ${e.message}` : ''}`)})\n`);
    return e.state;
  }
}
