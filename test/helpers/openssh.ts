/**
 * Debian's OpenSSH as the oracle of moduli files: ssh-keygen (-M screen) and
 * a real sshd. Where they are not installed the suites that need them say so
 * and skip, or fail where POWPRIME_REQUIRE_OPENSSH=1 (CI installs them).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const required = process.env.POWPRIME_REQUIRE_OPENSSH === '1';

function found(cmd: string, args: string[]): boolean {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return !r.error;
}

/** ssh-keygen's path when it runs here. */
export const sshKeygen = found('ssh-keygen', ['-?']) ? 'ssh-keygen' : null;
/** sshd's path (it must be started by its absolute path), and ssh. */
export const sshd = existsSync('/usr/sbin/sshd') ? '/usr/sbin/sshd' : null;
export const ssh = found('ssh', ['-V']) ? 'ssh' : null;

/** Whether the suite runs; says loudly why not, or throws where OpenSSH is required. */
export function openssh(what: string, needs: (string | null)[]): boolean {
  if (needs.every((x) => x !== null)) return true;
  const message = `${what}: OpenSSH (ssh-keygen, ssh, sshd from Debian's openssh-client and openssh-server) is not installed`;
  if (required) throw new Error(`${message}, and POWPRIME_REQUIRE_OPENSSH=1`);
  console.warn(`SKIPPED ${message}`);
  return false;
}
