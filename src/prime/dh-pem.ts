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
import { argumentError, show, showNumber } from '../validate.ts';

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
  if (typeof p !== 'bigint') throw argumentError(TypeError, 'p', `must be a bigint (got ${show(p)})`);
  if (p < 3n) throw argumentError(RangeError, 'p', `must be at least 3 (got ${showNumber(p)})`);
  if (typeof g !== 'bigint') throw argumentError(TypeError, 'g', `must be a bigint (got ${show(g)})`);
  if (g < 2n || g >= p) throw argumentError(RangeError, 'g', `must be from 2 to p − 1 (got ${showNumber(g)}, p ${showNumber(p)})`);
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

/** DER length at `at`: [length, where the contents start]. */
function readLength(der: Uint8Array, at: number): [number, number] {
  const first = der[at];
  if (first === undefined) throw new RangeError('DH parameters end early');
  if (first < 0x80) return [first, at + 1];
  const n = first & 0x7f;
  // Four length bytes reach 4 GiB, far past any DH parameter; 0x80 is BER's indefinite length, not DER.
  if (n === 0 || n > 4 || at + 1 + n > der.length) throw new RangeError('DH parameters have a bad DER length');
  let len = 0;
  for (let i = 1; i <= n; i++) len = len * 256 + der[at + i]!;
  return [len, at + 1 + n];
}

/** One TLV of `tag` at `at`: [contents, where the next starts]. */
function readTlv(der: Uint8Array, at: number, tag: number, what: string): [Uint8Array, number] {
  if (der[at] !== tag) throw new RangeError(`DH parameters: ${what} is not where a DHParameter has it`);
  const [len, start] = readLength(der, at + 1);
  if (start + len > der.length) throw new RangeError('DH parameters end early');
  return [der.subarray(start, start + len), start + len];
}

function readInteger(der: Uint8Array, at: number, what: string): [bigint, number] {
  const [body, next] = readTlv(der, at, 0x02, what);
  if (body.length === 0) throw new RangeError(`DH parameters: ${what} is empty`);
  if (body[0]! & 0x80) throw new RangeError(`DH parameters: ${what} is negative`);
  return [BigInt(`0x${Buffer.from(body).toString('hex')}`), next];
}

/**
 * Reads DHParameter { p, g [, privateValueLength] } from DER, or from PEM
 * text (`-----BEGIN DH PARAMETERS-----`) as `openssl dhparam -in` does.
 * Throws a RangeError saying what is wrong with anything else.
 */
export function parseDhParams(input: Uint8Array | string): { p: bigint; g: bigint; privateValueLength?: number } {
  // DER starts with its SEQUENCE's tag; anything else is text, where the PEM block may follow
  // other lines (`dhparam -text -out` writes the text before it, as openssl does).
  const der = typeof input === 'string' ? pemBody(input) : input[0] === 0x30 ? input : pemBody(Buffer.from(input).toString('latin1'));
  const [seq, end] = readTlv(der, 0, 0x30, 'the outer SEQUENCE');
  if (end !== der.length) throw new RangeError('DH parameters: bytes after the DHParameter');
  const [p, afterP] = readInteger(seq, 0, 'the prime');
  const [g, afterG] = readInteger(seq, afterP, 'the generator');
  if (afterG === seq.length) return { p, g };
  // PKCS#3's optional privateValueLength (openssl writes it for RFC 7919's groups).
  const [length, rest] = readInteger(seq, afterG, 'privateValueLength');
  if (rest !== seq.length) throw new RangeError('DH parameters: more fields than a PKCS#3 DHParameter has (X9.42 parameters are not read)');
  return { p, g, privateValueLength: Number(length) };
}

function pemBody(text: string): Uint8Array {
  const m = /-----BEGIN DH PARAMETERS-----([\s\S]*?)-----END DH PARAMETERS-----/.exec(text);
  if (!m) {
    const other = /-----BEGIN ([A-Z0-9 .]+)-----/.exec(text)?.[1];
    throw new RangeError(other ? `not DH parameters: the PEM block is "${other}" (PKCS#3 "DH PARAMETERS" is read)` : 'no "-----BEGIN DH PARAMETERS-----" block');
  }
  const b64 = m[1]!.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw new RangeError('DH parameters: the PEM block is not base64');
  return new Uint8Array(Buffer.from(b64, 'base64'));
}
