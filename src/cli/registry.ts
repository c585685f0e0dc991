import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { Keystore, redact, type LedgerEntry } from '../clients/registry/keystore.ts';
import type { Registrar } from '../clients/registry/registrar.ts';
import { PrimeRegistryClient } from '../clients/registry/client.ts';
import { MAX_REGISTRY_BITS } from '../limits.ts';
import { checkInteger, parseBigInt, showNumber } from '../validate.ts';
import { parseIntArg } from './args.ts';
import { reportKeyLost } from './key-lost.ts';
import { KEYSTORE_OPTION, makeRegistrar, type RegistrarFlags } from './registrar-flags.ts';
import { clientOptions, serviceFlags, withCommand } from './service-command.ts';
import { defaultStateDir } from '../clients/http/state-paths.ts';
import { terminalText } from './terminal-text.ts';
import { isoTime } from '../clients/clock.ts';

/**
 * A client for a command that only reads the registry (totp, requirements, get, ranges): it opens
 * no keystore (they read none), and a state dir this process cannot write is only read
 * (readOnlyState: no lock taken, nothing made; see RateLimiter) rather than refused. A folder it
 * can write is used as every command uses it, so a ban or a call these commands earn is recorded.
 */
export function readOnlyClient(o: RegistrarFlags): PrimeRegistryClient {
  const opts = clientOptions(o, 'POWPRIME_REGISTRY_URL');
  return new PrimeRegistryClient({ ...opts, readOnlyState: !folderWritable(opts.stateDir ?? defaultStateDir('registry')) });
}

/** Whether files can be made in `dir`, or in the nearest folder above it that exists (where a missing `dir` would be made). */
function folderWritable(dir: string): boolean {
  let at = path.resolve(dir);
  while (!existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  try {
    accessSync(at, constants.W_OK);
    return true;
  } catch (err) {
    // Anything else (a file where a folder should be) is for the usual path to report.
    return !['EACCES', 'EPERM', 'EROFS'].includes((err as NodeJS.ErrnoException).code ?? '');
  }
}

export function parsePrimeArg(text: string): bigint {
  const p = parseBigInt('p', text);
  if (p < 5n) throw new RangeError(`p must be at least 5 (got ${showNumber(p)})`);
  return p;
}

// Registry times come from the server: never formatted unchecked.
const iso = isoTime;

/** A ledger entry as the CLI prints it: keys hidden unless asked, instants as ISO 8601 (the JSON convention). */
function ledgerJson(e: LedgerEntry, showKeys: boolean): Record<string, unknown> {
  // The journaled raw answer is the ledger's business, never printed.
  const { received: _received, owner: _owner, ...entry } = e;
  const { at, totpTs, ...rest } = showKeys ? entry : redact(e);
  return { ...rest, at: iso(at), ...(totpTs !== undefined ? { totpReferenceAt: iso(totpTs * 1000) } : {}) };
}

/** The decrypted keys of an entry, a line each, for --show-keys without --json (nothing when it holds none). */
function keyLines(e: LedgerEntry): string[] {
  if (e.key === undefined) return [];
  return [`key ${e.key}`, `subkey ${e.subkey ?? '-'}`, `TOTP key ${e.totpKey ?? '-'}`, ...(e.totpTs !== undefined ? [`TOTP reference time ${iso(e.totpTs * 1000)}`] : [])];
}

/**
 * The registry's own fields, said once under the text that shows them: its spec gives their names
 * (trans; old_mbits, old_mtrans on GET /prime) but not what they measure, so they are printed as sent.
 */
const FIELDS_LEGEND =
  "(trans is the registry's transitional value, as its spec names it; old mbits and old mtrans are its fields old_mbits and old_mtrans, printed as sent: the spec does not say what they measure)";

const out = (o: RegistrarFlags, human: string, json: unknown): void => {
  // The human form carries the registry's text (idents, messages, notes): its controls shown escaped.
  process.stdout.write(o.json ? `${JSON.stringify(json, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n` : `${terminalText(human)}\n`);
};

export function registerRegistry(program: Command): void {
  const r = program.command('registry').description('the prime registry: register safe primes and keep their keys');
  const common = (c: Command): Command => serviceFlags(c, 'registry', 'POWPRIME_REGISTRY_URL').option(...KEYSTORE_OPTION);
  const act = (fn: (reg: Registrar, o: RegistrarFlags, cmd: Command) => Promise<void>) =>
    withCommand<RegistrarFlags>(async (cmd, o) => {
      const reg = makeRegistrar(o);
      try {
        await fn(reg, o, cmd);
      } finally {
        reg.keystore.close();
      }
    });
  const read = (fn: (client: PrimeRegistryClient, o: RegistrarFlags, cmd: Command) => Promise<void>) => withCommand<RegistrarFlags>(async (cmd, o) => fn(readOnlyClient(o), o, cmd));

  common(r.command('totp'))
    .description('the TOTP reference time and the current code')
    .action(
      read(async (client, o) => {
        const info = await client.totpInfo();
        const code = await client.code();
        out(o, `ts ${info.ts} (${iso(info.ts * 1000)}), code ${code}`, { at: iso(info.ts * 1000), code });
      }),
    );

  common(r.command('requirements').argument('[bits]'))
    .description('requirements for primes of a bit length, or for all')
    .action(
      read(async (client, o, cmd) => {
        const bits = cmd.args[0] === undefined ? undefined : checkInteger('bits', parseIntArg('bits', cmd.args[0]), 1, MAX_REGISTRY_BITS);
        const q = await client.requirements(bits);
        out(o, `bits ${q.bits} (the least bit length the registry takes${bits === undefined ? '' : ` for ${bits}-bit primes`}), trans ${q.trans}\n${FIELDS_LEGEND}`, q);
      }),
    );

  common(r.command('add').argument('<p>').option('--show-keys', 'print the decrypted keys too'))
    .description('check p locally, register it, and store its keys')
    .action(
      act(async (reg, o, cmd) => {
        const p = parsePrimeArg(cmd.args[0]!);
        // What an interrupted run left (`sending` with no live owner, a journaled answer) is settled first, as search --register does.
        for (const lost of await reg.recover()) reportKeyLost(lost);
        const { entry: e, sent } = await reg.registration(p);
        const showKeys = Boolean(cmd.opts<{ showKeys?: boolean }>().showKeys);
        // Registered before this command (by an earlier one, or another process sharing the keystore): nothing was sent.
        const already = !sent && e.state === 'registered';
        const shown = { ...ledgerJson(e, showKeys), alreadyRegistered: already };
        // After recover(), `sending` comes back only when another live process sharing the keystore is registering p.
        const why = e.state === 'sending' && e.owner && Keystore.ownerRunning(e) ? ` (being registered by process ${e.owner.pid} on ${e.owner.host}; its keys land in this keystore)` : '';
        const status = already ? 'already registered (keys in the keystore)' : `${e.state}${e.ident ? ` (${e.ident}${e.message ? `: ${e.message}` : ''})` : why}`;
        out(o, [`${e.prime}: ${status}`, ...(showKeys ? keyLines(e) : [])].join('\n'), shown);
        // Only `registered` leaves this keystore holding keys; anything else did not do what was asked.
        if (e.state !== 'registered') process.exitCode = 1;
      }),
    );

  common(r.command('note').argument('<p>').argument('<text>'))
    .description('replace the note of a prime registered from this keystore')
    .action(
      act(async (reg, o, cmd) => {
        const res = await reg.note(parsePrimeArg(cmd.args[0]!), cmd.args[1]!);
        out(o, `${res.success} (previous note: ${JSON.stringify(res.prevNote)})`, res);
      }),
    );

  common(r.command('get').argument('<p>'))
    .description('the registry record of a prime')
    .action(
      read(async (client, o, cmd) => {
        const rec = await client.prime(parsePrimeArg(cmd.args[0]!));
        if (!rec) process.exitCode = 1;
        const { claimed, ...rest } = rec ?? { claimed: 0 };
        const json = rec ? { ...rest, claimedAt: iso(claimed * 1000) } : null;
        const human = rec
          ? [
              `bits ${rec.bits}, trans ${rec.trans}, registered ${iso(claimed * 1000)}`,
              ...(rec.oldMbits !== undefined || rec.oldMtrans !== undefined ? [`old mbits ${rec.oldMbits ?? '-'}, old mtrans ${rec.oldMtrans ?? '-'}`] : []),
              ...(rec.note ? [`note ${JSON.stringify(rec.note)}`] : []),
              ...(rec.prev ? [`prev ${rec.prev}`] : []),
              ...(rec.next ? [`next ${rec.next}`] : []),
              FIELDS_LEGEND,
            ].join('\n')
          : 'not registered';
        out(o, human, json);
      }),
    );

  common(r.command('rekey').argument('<p>').option('--show-keys', 'print the new decrypted keys'))
    .description('get new keys for a prime registered from this keystore')
    .action(
      act(async (reg, o, cmd) => {
        const e = await reg.rekey(parsePrimeArg(cmd.args[0]!));
        if (e.state === 'key-lost') {
          // An earlier rekey's answer was lost and the registry had re-keyed on it: said loudly, exit 1.
          reportKeyLost(e);
          process.exitCode = 1;
        }
        const showKeys = Boolean(cmd.opts<{ showKeys?: boolean }>().showKeys);
        out(o, e.state === 'key-lost' ? `${e.prime}: key-lost` : [`${e.prime}: rekeyed`, ...(showKeys ? keyLines(e) : [])].join('\n'), ledgerJson(e, showKeys));
      }),
    );

  common(r.command('ranges'))
    .description('the smallest and largest registered primes')
    .action(
      read(async (client, o) => {
        const g = await client.ranges();
        out(o, `from ${g.from}\nto   ${g.to}`, g);
      }),
    );
}
