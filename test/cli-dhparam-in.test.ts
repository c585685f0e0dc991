// powprime dhparam --in: existing parameters checked, printed and converted
// as `openssl dhparam -in` does, and OpenSSL's single-dash spellings. The
// oracle is the openssl CLI throughout: it makes the files (asn1parse builds
// the broken ones from their fields) and gives the verdicts and the text.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliSync as cli } from './helpers/cli.ts';
import { hasCommand } from './helpers/oracles.ts';
import { tempDir } from './helpers/tmp.ts';

const hasOpenssl = hasCommand('openssl', ['version']);

function openssl(...args: string[]): { status: number | null; stdout: Buffer } {
  const r = spawnSync('openssl', args, { timeout: 120_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout };
}

/** A DER DHParameter built by openssl from the given fields (any values, valid or not). */
function asn1(dir: string, name: string, fields: string[]): string {
  const conf = path.join(dir, `${name}.cnf`);
  const out = path.join(dir, `${name}.der`);
  writeFileSync(conf, `asn1=SEQUENCE:dh\n[dh]\n${fields.map((f, i) => `f${i}=INTEGER:${f}\n`).join('')}`);
  expect(openssl('asn1parse', '-genconf', conf, '-out', out, '-noout').status).toBe(0);
  return out;
}

describe.skipIf(!hasOpenssl)('powprime dhparam --in', () => {
  const dir = tempDir('powprime-dhparam-in-');
  const safe = `0x${openssl('prime', '-generate', '-safe', '-bits', '512', '-hex').stdout.toString().trim()}`;
  // A 512-bit prime openssl made without -safe; (p-1)/2 is then almost surely composite, and checked so.
  const plain = `0x${openssl('prime', '-generate', '-bits', '512', '-hex').stdout.toString().trim()}`;
  const files = {
    ours: path.join(dir, 'ours.pem'),
    ffdhe2048: path.join(dir, 'ffdhe2048.pem'),
    composite: asn1(dir, 'composite', [`0x1${'0'.repeat(127)}1`, '2']),
    notSafe: asn1(dir, 'not-safe', [plain, '2']),
    gTooBig: asn1(dir, 'g-too-big', [safe, `${safe}`.replace(/.$/, (d) => (Number.parseInt(d, 16) - 1).toString(16))]),
    g5: asn1(dir, 'g5', [safe, '5']),
    withLength: asn1(dir, 'with-length', [safe, '2', '256']),
  };
  expect(cli('dhparam', '512', '--seed', '3', '--out', files.ours).status).toBe(0);
  // RFC 7919's group as openssl writes it: PKCS#3 with the optional privateValueLength.
  writeFileSync(files.ffdhe2048, openssl('genpkey', '-genparam', '-algorithm', 'DH', '-pkeyopt', 'group:ffdhe2048').stdout);

  it.each(Object.keys(files) as (keyof typeof files)[])('--check gives openssl dhparam -check’s verdict on %s', (name) => {
    const file = files[name];
    if (name === 'notSafe') expect(openssl('prime', (BigInt(plain) >> 1n).toString()).stdout.toString()).toMatch(/is not prime/);
    const theirs = openssl('dhparam', '-in', file, ...(file.endsWith('.der') ? ['-inform', 'DER'] : []), '-check', '-noout').status;
    const ours = cli('dhparam', '--in', file, '--check', '--noout');
    expect(ours.status, ours.stderr).toBe(theirs === 0 ? 0 : 1);
    expect(ours.stdout).toBe('');
    if (theirs === 0) expect(ours.stderr).toMatch(/^DH parameters appear to be ok\.\n/);
    else expect(ours.stderr).toMatch(/^powprime: DH parameters are not valid: (p is not prime|p is not a safe prime|g is not a suitable generator)[^\n]*\n$/);
  });

  // Not ffdhe2048: openssl names RFC 7919's groups instead of printing P.
  it.each(['ours', 'withLength', 'g5'] as const)('--text prints %s as openssl dhparam -text -noout does, byte for byte', (name) => {
    const file = files[name];
    const theirs = openssl('dhparam', '-in', file, ...(file.endsWith('.der') ? ['-inform', 'DER'] : []), '-text', '-noout');
    const ours = cli('dhparam', '--in', file, '--text', '--noout');
    expect(ours.status, ours.stderr).toBe(0);
    expect(ours.stdout).toBe(theirs.stdout.toString());
  });

  it('converts PEM to DER and back as openssl does (the privateValueLength dropped by both)', () => {
    for (const file of [files.ours, files.ffdhe2048]) {
      const der = path.join(dir, `${path.basename(file)}.der`);
      expect(cli('dhparam', '--in', file, '--outform', 'DER', '--out', der).status).toBe(0);
      expect(readFileSync(der)).toEqual(openssl('dhparam', '-in', file, '-outform', 'DER').stdout);
      const back = cli('dhparam', '--in', der);
      expect(back.stdout).toBe(openssl('dhparam', '-inform', 'DER', '-in', der).stdout.toString());
    }
  });

  it('a file written with --text --out is read back, as openssl reads it: the text before the PEM block', () => {
    const both = path.join(dir, 'text-and-pem.pem');
    expect(cli('dhparam', '--in', files.ours, '--text', '--out', both).status).toBe(0);
    expect(readFileSync(both, 'utf8')).toMatch(/^ {4}DH Parameters: \(512 bit\)\n[\s\S]*-----BEGIN DH PARAMETERS-----/);
    expect(openssl('dhparam', '-in', both, '-check', '-noout').status).toBe(0);
    const r = cli('dhparam', '--in', both, '--check', '--noout');
    expect(r.status, r.stderr).toBe(0);
    expect(cli('dhparam', '--in', both).stdout).toBe(readFileSync(files.ours, 'utf8'));
  });

  it('--json carries bits, p, g and the verdict', () => {
    const r = cli('dhparam', '--in', files.composite, '--check', '--json');
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ bits: 513, p: `0x1${'0'.repeat(127)}1`, g: '2', ok: false, problems: ['p is not prime'] });
  });

  it.each([
    ['garbage', Buffer.from('not parameters at all\n'), /^powprime: --in \S+: no "-----BEGIN DH PARAMETERS-----" block\n$/],
    ['a DER SEQUENCE of something else', Buffer.from([0x30, 0x03, 0x04, 0x01, 0x00]), /^powprime: --in \S+: DH parameters: the prime is not where a DHParameter has it\n$/],
    ['a certificate', Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'), /^powprime: --in \S+: not DH parameters: the PEM block is "CERTIFICATE"/],
    ['a cut DER', Buffer.from([0x30, 0x82, 0x01, 0x08, 0x02, 0x82, 0x01, 0x01, 0x00, 0xff]), /^powprime: --in \S+: DH parameters end early\n$/],
    ['an empty file', Buffer.alloc(0), /^powprime: --in \S+ is empty\n$/],
  ])('%s → one line, exit 2', (name, bytes, message) => {
    const file = path.join(dir, `${name.replace(/ /g, '-')}.bin`);
    writeFileSync(file, bytes);
    const r = cli('dhparam', '--in', file, '--check');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it.each([
    [['--in', 'x.pem', '1024'], /^powprime: \[bits\] does not go with --in: the parameters are read, not made\n$/],
    [['--in', 'x.pem', '--seed', '4'], /^powprime: --seed does not go with --in/],
    [['1024', '--check'], /^powprime: --check goes with --in \(parameters read from a file\)\n$/],
    [['--in', 'x.pem', '--text', '--json'], /^powprime: --text does not go with --json/],
    [['--in', '/dev/zero', '--check'], /^powprime: --in \/dev\/zero is not a regular file/],
    [['--in', 'no-such-params.pem', '--check'], /^powprime: --in no-such-params\.pem: no such file\n$/],
  ])('dhparam %j → one line, exit 2', (args, message) => {
    const r = cli('dhparam', ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('OpenSSL spellings', () => {
  const dir = tempDir('powprime-openssl-spellings-');

  it('dhparam -out F -2 BITS makes the same file as dhparam BITS --out F', () => {
    const a = path.join(dir, 'a.pem');
    const b = path.join(dir, 'b.pem');
    expect(cli('dhparam', '-out', a, '-2', '512', '--seed', '9').status).toBe(0);
    expect(cli('dhparam', '512', '--out', b, '--seed', '9').status).toBe(0);
    expect(readFileSync(a, 'utf8')).toBe(readFileSync(b, 'utf8'));
    const der = path.join(dir, 'a.der');
    expect(cli('dhparam', '-in', a, '-outform', 'DER', '-out', der).status).toBe(0);
    expect(cli('dhparam', '-inform', 'DER', '-in', der, '-check', '-noout').stderr).toMatch(/^DH parameters appear to be ok\.\n$/);
    // -inform is what the file must be, as openssl has it (`openssl dhparam -inform DER -in a.pem` fails too), not a hint.
    expect(openssl('dhparam', '-inform', 'DER', '-in', a, '-check', '-noout').status).not.toBe(0);
    expect(cli('dhparam', '-inform', 'DER', '-in', a, '-check', '-noout')).toMatchObject({
      status: 2,
      stderr: `powprime: --in ${a} is not DER (a DER DHParameter starts with a SEQUENCE, byte 0x30): it is PEM text; leave out --inform DER\n`,
    });
    expect(cli('dhparam', '--inform', 'PEM', '--in', der, '--check', '--noout')).toMatchObject({ status: 2, stderr: `powprime: --in ${der}: no "-----BEGIN DH PARAMETERS-----" block\n` });
  });

  it('check -hex is --hex', () => {
    expect(cli('check', '-hex', '23').stdout).toBe('0x17: safe prime\n');
  });

  it.each([
    [['dhparam', '-5', '1024'], /^powprime: -5: powprime dhparam makes generator 2 only/],
    [['dhparam', '-dsaparam', '1024'], /^powprime: -dsaparam: /],
    [['check', '-checks', '20', '23'], /^powprime: -checks: powprime check sets its own rounds/],
    [['check', '-generate', '-bits', '512'], /^powprime: -generate: to generate, .*powprime search --bits B --count 1 --format hex\n$/],
  ])('%j is answered with powprime’s way: one line, exit 2', (args, message) => {
    const r = cli(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('words after -- are not rewritten', () => {
    const r = cli('check', '--', '-hex');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/"-hex"/);
  });
});
