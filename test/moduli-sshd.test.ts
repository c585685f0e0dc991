// A real sshd (Debian's openssh-server) on 127.0.0.1, its own host key and
// config, ModuliFile a file powprime wrote and group exchange the only key
// exchange: ssh completes the exchange with a group from that file. The
// same file with its sizes mislabelled is the control: sshd then says it has
// no suitable primes and falls back to a fixed group, which the test sees.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasNative } from './helpers/backends.ts';
import { runCliSync as cli } from './helpers/cli.ts';
import { openssh, ssh, sshd, sshKeygen } from './helpers/openssh.ts';
import { freePort } from './helpers/redis.ts';
import { tempDir } from './helpers/tmp.ts';

const PRIVSEP = '/run/sshd';
let madePrivsep = false;
const servers: ChildProcess[] = [];

afterAll(() => {
  for (const s of servers) s.kill('SIGKILL');
  if (madePrivsep) rmSync(PRIVSEP, { recursive: true, force: true });
});

/** Runs sshd with `moduli` as its ModuliFile, connects once with ssh, and returns both logs. */
async function handshake(dir: string, moduli: string): Promise<{ server: string; client: string }> {
  // sshd refuses to start without its privilege separation folder (made by the package's service, absent in a container).
  if (!existsSync(PRIVSEP)) {
    mkdirSync(PRIVSEP, { mode: 0o755 });
    madePrivsep = true;
  }
  const port = await freePort();
  const config = path.join(dir, `sshd_config.${port}`);
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${path.join(dir, 'host')}`,
      `PidFile ${path.join(dir, `sshd.${port}.pid`)}`,
      `ModuliFile ${moduli}`,
      'KexAlgorithms diffie-hellman-group-exchange-sha256',
      'UsePAM no',
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'LogLevel DEBUG3',
      '',
    ].join('\n'),
  );
  // -D: in the foreground; -e: its log on stderr; -f: this config only.
  const server = spawn(sshd!, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  servers.push(server);
  let serverLog = '';
  server.stderr!.on('data', (d: Buffer) => (serverLog += d.toString()));
  const listening = Date.now();
  while (!serverLog.includes(`Server listening on 127.0.0.1 port ${port}`)) {
    if (server.exitCode !== null || Date.now() - listening > 10_000) throw new Error(`sshd did not start: ${serverLog}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const client = spawnSync(
    ssh!,
    [
      '-vvv',
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=no',
      '-o',
      'UserKnownHostsFile=/dev/null',
      '-o',
      'KexAlgorithms=diffie-hellman-group-exchange-sha256',
      '-o',
      'ConnectTimeout=10',
      '-p',
      String(port),
      'powprime-test@127.0.0.1',
      'true',
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  // Authentication fails (no user, no key): the key exchange before it is the point.
  await new Promise((r) => setTimeout(r, 200));
  server.kill('SIGTERM');
  await new Promise((r) => (server.exitCode !== null ? r(null) : server.once('exit', r)));
  return { server: serverLog, client: client.stderr };
}

describe.runIf(hasNative && openssh('a real sshd on a powprime moduli file', [sshKeygen, sshd, ssh]))('a real sshd on a powprime moduli file', () => {
  it('completes diffie-hellman-group-exchange-sha256 with a group from the file, with no fallback warning', async () => {
    const dir = tempDir('powprime-sshd-');
    expect(spawnSync(sshKeygen!, ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'host')]).status).toBe(0);
    const moduli = path.join(dir, 'moduli');
    const made = cli('moduli', '--bits', '2048', '--count', '2', '--seed', '43', '--out', moduli);
    expect(made.status, made.stderr).toBe(0);
    const ours = await handshake(dir, moduli);
    expect(ours.client).toMatch(/SSH2_MSG_KEX_DH_GEX_GROUP received/);
    expect(ours.client).toMatch(/SSH2_MSG_NEWKEYS received/);
    expect(ours.server).toMatch(/SSH2_MSG_KEX_DH_GEX_GROUP sent/);
    expect(ours.server).not.toMatch(/WARNING|no suitable primes|moduli:\d+:|could not open|fixed modulus/);

    // The control: the same groups with a wrong size field are skipped, and sshd says so.
    const broken = path.join(dir, 'broken');
    writeFileSync(broken, readFileSync(moduli, 'utf8').replaceAll(' 2047 ', ' 2046 '));
    const control = await handshake(dir, broken);
    expect(control.server).toMatch(/moduli:2: prime has wrong size: actual 2048 listed 2046/);
    expect(control.server).toMatch(/WARNING: no suitable primes in/);
  }, 120_000);
});
