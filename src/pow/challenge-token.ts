/**
 * The challenge token's bytes: the nonce a service hands out is this token in
 * base64url, so the service keeps no state per challenge.
 *
 *   offset  size  field
 *        0     1  version (1)
 *        1     1  key id (see challenge-hmac.ts)
 *        2     1  flags: bit 0 the difficulty is in bits (else hex digits), bit 1 bound to an audience
 *        3     2  difficulty, big-endian (hex digits 0–64, or bits 0–256)
 *        5     6  expiry, ms since the epoch, big-endian
 *       11    16  salt (random: makes each token unique; the replay store's key)
 *       27    16  audience tag: the first 16 bytes of SHA-256(audience), zeros without one
 *       43    32  HMAC-SHA-256 of bytes 0–42 under the key
 *
 * Every field has a fixed offset and width and the token a fixed length, so
 * no field can be moved into another: a value shifted by a byte is another
 * header and another MAC (the splicing ALTCHA's delimited format allowed).
 * 75 bytes are exactly 100 base64url characters with no padding and no spare
 * bits, so each token has one spelling: a second spelling of the same bytes
 * cannot pass the replay store as a new token.
 */
export const TOKEN_VERSION = 1;
export const OFF_KEY_ID = 1;
export const OFF_FLAGS = 2;
export const OFF_DIFFICULTY = 3;
export const OFF_EXPIRES = 5;
export const OFF_SALT = 11;
export const SALT_LENGTH = 16;
export const OFF_AUDIENCE = 27;
export const AUDIENCE_TAG_LENGTH = 16;
/** Bytes the MAC covers. */
export const HEADER_LENGTH = 43;
export const TOKEN_BYTES = 75;
/** The nonce's length in characters: every token has exactly this many. */
export const NONCE_LENGTH = 100;

export const FLAG_BITS = 1;
export const FLAG_AUDIENCE = 2;

/**
 * The part of the nonce that spells only salt bits (characters 15–35 carry
 * bits 90–215, all inside bytes 11–26): 126 random bits naming the token in
 * the replay store, taken without decoding anything.
 */
export function replayId(nonce: string): string {
  return nonce.slice(15, 36);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/** base64url of the 75 token bytes: 100 characters, no padding. */
export function encodeToken(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < TOKEN_BYTES; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]! + ALPHABET[n & 63]!;
  }
  return out;
}

/** Decodes a 100-character nonce into out (75 bytes); false when a character is not base64url. */
export function decodeToken(nonce: string, out: Uint8Array): boolean {
  let bad = 0;
  for (let i = 0, o = 0; i < NONCE_LENGTH; i += 4, o += 3) {
    const a = value(nonce.charCodeAt(i));
    const b = value(nonce.charCodeAt(i + 1));
    const c = value(nonce.charCodeAt(i + 2));
    const d = value(nonce.charCodeAt(i + 3));
    bad |= a | b | c | d;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o] = n >>> 16;
    out[o + 1] = n >>> 8;
    out[o + 2] = n;
  }
  return bad >= 0;
}

function value(code: number): number {
  return code < 128 ? VALUE[code]! : -1;
}

/** The 48-bit big-endian number at bytes[at .. at + 6). */
export function readUint48(bytes: Uint8Array, at: number): number {
  let n = 0;
  for (let i = 0; i < 6; i++) n = n * 256 + bytes[at + i]!;
  return n;
}

export function writeUint48(bytes: Uint8Array, at: number, n: number): void {
  for (let i = 5; i >= 0; i--) {
    bytes[at + i] = n % 256;
    n = Math.floor(n / 256);
  }
}
