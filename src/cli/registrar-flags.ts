/**
 * The registrar as the commands that register primes make it from their
 * flags: `registry add`, `note`, `rekey` and `search --register` share the
 * keystore flag and the rule for which keystore file a registry host gets.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PrimeRegistryClient } from '../clients/registry/client.ts';
import { Keystore } from '../clients/registry/keystore.ts';
import { Registrar } from '../clients/registry/registrar.ts';
import { replaceablePath } from './out-path.ts';
import { clientOptions, type ServiceFlags } from './service-command.ts';

export type RegistrarFlags = ServiceFlags & { keystore?: string };

/** The keystore's option: it holds the primes' private keys, so it is named apart from state and caches. */
export const KEYSTORE_OPTION = ['--keystore <file>', 'the keys of registered primes (default: <state-dir>/keys-<host>.json, one per registry host); back it up'] as const;

/**
 * The keystore's file: --keystore as given, else one per registry host in the
 * state dir. A keys.json of an earlier version (no host in its name) belongs
 * to the default registry (POWPRIME_REGISTRY_URL) and stays in use for it
 * while keys-<host>.json does not exist; used against another host it is left
 * alone, and said so on stderr, since it holds keys.
 */
function keystoreFile(client: PrimeRegistryClient, keystore: string | undefined): string {
  // A keystore given is judged like --out (it is replaced whole on each write): a regular file or none, in a folder that exists.
  if (keystore !== undefined) return replaceablePath(keystore, '--keystore');
  const file = client.hostFile('keys.json', { legacy: true });
  const legacy = path.join(client.stateDir, 'keys.json');
  if (file !== legacy && existsSync(legacy)) {
    process.stderr.write(
      `powprime: ${legacy}, the keystore of an earlier version, belongs to the default registry (POWPRIME_REGISTRY_URL: ${client.defaultBaseUrl?.host ?? 'not set'}) and is not used for ${client.baseUrl.host}, whose keystore is ${file}; pass --keystore ${legacy} to use it\n`,
    );
  }
  return file;
}

export function makeRegistrar(o: RegistrarFlags): Registrar {
  const client = new PrimeRegistryClient(clientOptions(o, 'POWPRIME_REGISTRY_URL'));
  return new Registrar(client, new Keystore(keystoreFile(client, o.keystore)));
}
