/** `search --register`: each found prime registered with the prime registry, its keys kept. */
import { setTimeout as sleep } from 'node:timers/promises';
import { Keystore } from '../clients/registry/keystore.ts';
import type { Registrar, Registration } from '../clients/registry/registrar.ts';
import { interruptSignal } from './interrupt.ts';
import { terminalLine } from './terminal-text.ts';
import { reportKeyLost } from './key-lost.ts';

/**
 * What became of the primes this run came to, each counted once, by who
 * acted on it: several processes sharing one keystore each count what they
 * sent, so their `registered` add up to what the registry took.
 */
export interface RegistryTally {
  /** Sent by this process; the registry took it and its keys are in the keystore. */
  registered: number;
  /** Not sent: the keystore already held it registered (by another process sharing it, or an earlier run), keys included. */
  alreadyRegistered: number;
  /** Not sent: another process sharing the keystore was registering it and had not finished within the wait, or the registry refused it to that process. */
  otherProcess: number;
  /** Sent by this process and refused: the registry holds it already (registered by someone else, under another key). */
  registeredElsewhere: number;
  /** Sent by this process and refused for another reason (the ident is on stderr). */
  rejected: number;
  /** Registered, but a crash came before its key was stored (reported on stderr). */
  keyLost: number;
  /** Not sent: the bit length is below the registry's requirements. */
  belowRequirements: number;
}

/** The tally as the summary line says it, in the order above. */
export const TALLY_WORDS: Record<keyof RegistryTally, string> = {
  registered: 'registered',
  alreadyRegistered: 'already registered (keys in the keystore)',
  otherProcess: 'left to another process sharing the keystore',
  registeredElsewhere: 'refused as registered elsewhere',
  rejected: 'rejected',
  keyLost: 'key-lost',
  belowRequirements: 'below the requirements',
};

/** How long a prime another live process is sending is waited for before it is left to that process. */
const IN_FLIGHT_WAIT_MS = 60_000;

/** Registration of found primes: requirements read once, tallies for the summary. */
export class Registering {
  readonly tally: RegistryTally = { registered: 0, alreadyRegistered: 0, otherProcess: 0, registeredElsewhere: 0, rejected: 0, keyLost: 0, belowRequirements: 0 };
  private minBits: number | null = null;

  constructor(
    private readonly reg: Registrar,
    private readonly bits: number,
  ) {}

  async start(): Promise<void> {
    await this.recover();
    this.minBits = (await this.reg.client.requirements(this.bits)).bits;
  }

  private async recover(): Promise<void> {
    for (const e of await this.reg.recover()) {
      this.tally.keyLost++;
      reportKeyLost(e);
    }
  }

  /** Folds the keystore's journal into its snapshot as the command ends. */
  close(): void {
    this.reg.keystore.close();
  }

  /**
   * Registers one prime (or learns it is known); returns its ledger state.
   * `earlier`: a prime of an earlier run of this file, whose outcome that run
   * counted (only what this run does to it now is counted).
   */
  async register(prime: bigint, opts: { earlier?: boolean } = {}): Promise<string> {
    if (this.minBits !== null && this.bits < this.minBits) {
      if (!opts.earlier) this.tally.belowRequirements++;
      return 'below-requirements';
    }
    const r = await this.settled(prime, await this.reg.registration(prime));
    const e = r.entry;
    if (r.sent) {
      if (e.state === 'registered') this.tally.registered++;
      else if (e.state === 'registered-elsewhere') this.tally.registeredElsewhere++;
      else if (e.state === 'rejected') {
        this.tally.rejected++;
        // The ident and message are the registry's text: escaped for the terminal.
        process.stderr.write(`powprime: ${prime} rejected (${terminalLine(`${e.ident}${e.message ? `: ${e.message}` : ''}`)})\n`);
      }
      return e.state;
    }
    if (opts.earlier) return e.state;
    if (e.state === 'registered') this.tally.alreadyRegistered++;
    else if (e.state !== 'key-lost') this.tally.otherProcess++;
    return e.state;
  }

  /**
   * A prime another live process sharing the keystore is sending (`sending`,
   * its owner running) is waited for, up to IN_FLIGHT_WAIT_MS, so that it is
   * counted as what it became; one whose owner dies meanwhile is settled as
   * a crash's (start() does the same) and registered here if the registry
   * never got it.
   */
  private async settled(prime: bigint, r: Registration): Promise<Registration> {
    const until = Date.now() + IN_FLIGHT_WAIT_MS;
    while (!r.sent && r.entry.state === 'sending' && Date.now() < until) {
      if (!Keystore.ownerRunning(r.entry)) {
        await this.recover();
        r = await this.reg.registration(prime);
        continue;
      }
      await sleep(50, undefined, { signal: interruptSignal });
      const now = this.reg.keystore.get(prime);
      if (now) r = { entry: now, sent: false };
    }
    return r;
  }
}
