/**
 * PKCS#3 DH parameters as DER and PEM (`-----BEGIN DH PARAMETERS-----`), the
 * format `openssl dhparam` reads and writes:
 *
 *   DHParameter ::= SEQUENCE { prime INTEGER, base INTEGER }
 *
 * Written by hand because it is two INTEGERs in a SEQUENCE: a general ASN.1
 * library would be a dependency for twenty lines. The test checks the output
 * byte for byte against the `openssl` CLI's encoding of the same group.
 */
import { toBytes } from './bigint.ts';

/** DER length octets: short form below 128, else 0x80|n followed by n big-endian bytes. */
function derLength(n: number): Uint8Array {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes = toBytes(BigInt(n));
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

function tlv(tag: number, body: Uint8Array): Uint8Array {
  const len = derLength(body.length);
  const out = new Uint8Array(1 + len.length + body.length);
  out[0] = tag;
  out.set(len, 1);
  out.set(body, 1 + len.length);
  return out;
}

/** A non-negative INTEGER: minimal big-endian two's complement, so a leading 0 when the top bit is set. */
function derInteger(n: bigint): Uint8Array {
  const bytes = toBytes(n);
  return tlv(0x02, bytes[0]! & 0x80 ? Uint8Array.of(0, ...bytes) : bytes);
}

/** The DER encoding of DHParameter { p, g }. */
export function dhParamsDer(p: bigint, g: bigint): Uint8Array {
  if (typeof p !== 'bigint' || p < 3n) throw new RangeError('p must be a bigint of at least 3');
  if (typeof g !== 'bigint' || g < 2n || g >= p) throw new RangeError('g must be a bigint with 2 ≤ g < p');
  const ints = [derInteger(p), derInteger(g)];
  const body = new Uint8Array(ints[0]!.length + ints[1]!.length);
  body.set(ints[0]!);
  body.set(ints[1]!, ints[0]!.length);
  return tlv(0x30, body);
}

/** PEM text of DHParameter { p, g }: base64 in 64-character lines, as OpenSSL writes it. */
export function dhParamsPem(p: bigint, g: bigint): string {
  const b64 = Buffer.from(dhParamsDer(p, g)).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN DH PARAMETERS-----\n${lines.join('\n')}\n-----END DH PARAMETERS-----\n`;
}
