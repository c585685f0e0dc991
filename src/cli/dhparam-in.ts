/**
 * `powprime dhparam --in FILE`: existing parameters read, checked (--check),
 * printed (--text) or converted (--outform), as `openssl dhparam -in` does.
 */
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { dhParamsProblems, generatesSubgroup } from '../prime/dh-check.ts';
import { dhParamsDer, dhParamsPem, parseDhParams } from '../prime/dh-pem.ts';
import { exitFailed } from './exit-failed.ts';
import { DH_MAX_BITS } from '../limits.ts';
import { checkRegularInput, replaceablePath } from './out-path.ts';

export interface DhparamInOpts {
  in: string;
  inform?: string;
  outform: string;
  out?: string;
  check?: boolean;
  text?: boolean;
  noout?: boolean;
  json?: boolean;
}

/** The largest parameter file read: a 16384-bit PEM is under 3 KiB; anything near this is not DH parameters. */
const MAX_IN_BYTES = 1 << 20;

/** Binary on a terminal is garbage on screen; openssl writes it anyway, we ask for a place. */
export function refuseDerOnTerminal(der: boolean, toStdout: boolean): void {
  if (der && toStdout && process.stdout.isTTY) throw new RangeError('--outform DER is binary: give --out FILE or redirect stdout');
}

export async function dhparamFromFile(opts: DhparamInOpts): Promise<void> {
  const inform = opts.inform?.toUpperCase();
  if (inform !== undefined && inform !== 'PEM' && inform !== 'DER') throw new RangeError(`--inform must be PEM or DER (got ${JSON.stringify(opts.inform)})`);
  if (opts.json && opts.text) throw new RangeError('--text does not go with --json: the JSON carries p and g');
  const der = opts.outform.toUpperCase() === 'DER';
  refuseDerOnTerminal(der, !opts.noout && !opts.json && opts.out === undefined);
  const target = opts.out === undefined || opts.noout ? undefined : replaceablePath(opts.out);
  checkRegularInput(opts.in, '--in');
  const bytes = readFileSync(opts.in);
  if (bytes.length === 0) throw new RangeError(`--in ${opts.in} is empty`);
  if (bytes.length > MAX_IN_BYTES) throw new RangeError(`--in ${opts.in} is ${bytes.length} bytes: too large for DH parameters`);
  // parseDhParams reads either: --inform DER must not fall back to PEM, as openssl's does not.
  if (inform === 'DER' && bytes[0] !== 0x30) {
    const pem = bytes.includes('-----BEGIN ') ? ': it is PEM text; leave out --inform DER' : '';
    throw new RangeError(`--in ${opts.in} is not DER (a DER DHParameter starts with a SEQUENCE, byte 0x30)${pem}`);
  }
  let params: ReturnType<typeof parseDhParams>;
  try {
    // Without --inform the content says which: PEM is text with a BEGIN line.
    params = parseDhParams(inform === 'PEM' ? bytes.toString('latin1') : new Uint8Array(bytes));
  } catch (err) {
    throw new RangeError(`--in ${opts.in}: ${(err as Error).message}`);
  }
  const { p, g } = params;
  const bits = p.toString(2).length;
  // As openssl caps its check: a test of a huge number would run for hours.
  if (opts.check && bits > DH_MAX_BITS) throw new RangeError(`--in ${opts.in}: p has ${bits} bits; --check takes up to ${DH_MAX_BITS}`);
  const problems = opts.check ? await dhParamsProblems(p, g) : [];
  if (opts.json) {
    const check = opts.check ? { ok: problems.length === 0, problems } : {};
    process.stdout.write(`${JSON.stringify({ bits, p: `0x${p.toString(16)}`, g: g.toString(), ...check })}\n`);
  } else if (!opts.noout || opts.text) {
    const encoded = opts.noout ? '' : der ? Buffer.from(dhParamsDer(p, g)) : dhParamsPem(p, g);
    const body = opts.text ? Buffer.concat([Buffer.from(dhText(p, g, params.privateValueLength)), Buffer.from(encoded)]) : encoded;
    if (target !== undefined) writeFileAtomic(target, body, 0o644);
    else process.stdout.write(body);
  }
  if (!opts.check) return;
  if (problems.length) {
    exitFailed(`DH parameters are not valid: ${problems.join('; ')}`);
    return;
  }
  // openssl says this on stderr too, so stdout stays the parameters.
  if (!opts.json) process.stderr.write('DH parameters appear to be ok.\n');
  if (!generatesSubgroup(p, g)) {
    const fix = g === 2n ? 'p ≡ 23 mod 24 avoids it, as in powprime’s own' : 'a g whose (p-1)/2-th power is 1 avoids it';
    process.stderr.write(`powprime: note: g = ${g} generates the whole group, not the subgroup of prime order (p-1)/2, so each shared secret gives away one bit (${fix})\n`);
  }
}

/**
 * `openssl dhparam -text`'s layout: P in hex bytes, 15 a line, a small G in
 * decimal and hex, and privateValueLength when the file has one. (OpenSSL
 * names RFC 7919's groups, "GROUP: ffdhe2048", instead of printing P; this
 * prints P for every group.)
 */
function dhText(p: bigint, g: bigint, privateValueLength?: number): string {
  const block = (n: bigint): string => {
    let hex = n.toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    // A leading 00 when the top bit is set, as in the DER INTEGER.
    if (Number.parseInt(hex[0]!, 16) >= 8) hex = `00${hex}`;
    const bytes = hex.match(/../g)!;
    const rows: string[] = [];
    for (let i = 0; i < bytes.length; i += 15) rows.push(`        ${bytes.slice(i, i + 15).join(':')}${i + 15 < bytes.length ? ':' : ''}`);
    return rows.join('\n');
  };
  const gText = g < 1n << 64n ? `    G:    ${g} (0x${g.toString(16)})` : `    G:\n${block(g)}`;
  const length = privateValueLength === undefined ? '' : `    recommended-private-length: ${privateValueLength} bits\n`;
  return `    DH Parameters: (${p.toString(2).length} bit)\n    P:   \n${block(p)}\n${gText}\n${length}`;
}
