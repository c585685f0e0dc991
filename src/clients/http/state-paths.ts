/**
 * Where a client's state files live: a folder per service (under
 * $XDG_STATE_HOME), and in it a file per host, so two services' hosts, or a
 * test server beside the real one, never share a ledger or a rate limit.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { argumentError, show } from '../../validate.ts';

/** The folder of `service`'s state when the client is given no stateDir. */
export function defaultStateDir(service: string): string {
  const base = process.env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'powprime', service);
}

/** A URL's host (with its port) as it appears in state file names: characters other than letters, digits, '.' and '-' become '_'. */
export function hostTag(url: URL): string {
  return url.host.replace(/[^a-zA-Z0-9.-]/g, '_');
}

/**
 * `name` in `dir`, per host: `<stem>-<host><ext>` (keys.json for 127.0.0.1:8080 is keys-127.0.0.1_8080.json).
 * With `legacyHost`, the host the host-less file of earlier versions belongs to: for that host, while
 * the per-host file does not exist and the host-less one does, the host-less one (used where it is:
 * not renamed or copied, so a process holding its lock is never raced).
 */
export function hostStateFile(dir: string, name: string, host: string, legacyHost?: string): string {
  if (typeof name !== 'string') throw argumentError(TypeError, 'name', `must be a file name (got ${show(name)})`);
  // A name is one file of the state dir: a separator or a dot folder would reach outside it.
  if (name === '' || /[/\\]/.test(name) || /^\.\.?$/.test(name)) throw argumentError(RangeError, 'name', `must be a file name, with no folder in it (got ${show(name)})`);
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const file = path.join(dir, `${stem}-${host}${ext}`);
  const legacy = path.join(dir, name);
  if (legacyHost === host && !existsSync(file) && existsSync(legacy)) return legacy;
  return file;
}
