/**
 * Base85 as Python's base64.b85encode writes it (RFC 1924 alphabet): 4-byte
 * big-endian groups to 5 characters; a short final group of n bytes is
 * zero-padded and written as n + 1 characters. Written here because no
 * well-kept npm package implements this variant (Ascii85/Z85 differ).
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';
const VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

export function b85encode(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('bytes must be a Uint8Array');
  let out = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const n = Math.min(4, bytes.length - i);
    let v = 0;
    for (let k = 0; k < 4; k++) v = v * 256 + (k < n ? bytes[i + k]! : 0);
    const chars = new Array<string>(5);
    for (let k = 4; k >= 0; k--) {
      chars[k] = ALPHABET[v % 85]!;
      v = Math.floor(v / 85);
    }
    out += chars.slice(0, n + 1).join('');
  }
  return out;
}

export function b85decode(text: string): Uint8Array {
  if (typeof text !== 'string') throw new TypeError('text must be a string');
  const full = Math.floor(text.length / 5);
  const rest = text.length % 5;
  if (rest === 1) throw new RangeError(`base85 text of length ${text.length} cannot be complete (a final group needs 2 to 5 characters)`);
  const out = new Uint8Array(full * 4 + (rest ? rest - 1 : 0));
  for (let g = 0; g * 5 < text.length; g++) {
    let v = 0;
    for (let k = 0; k < 5; k++) {
      const pos = g * 5 + k;
      let d = 84; // a short final group is padded with the highest digit, '~'
      if (pos < text.length) {
        const c = text.charCodeAt(pos);
        d = c < 128 ? VALUE[c]! : -1;
        if (d < 0) throw new RangeError(`text has a bad base85 character ${JSON.stringify(text[pos])} at position ${pos}`);
      }
      v = v * 85 + d;
    }
    if (v > 0xffffffff) throw new RangeError(`base85 group at position ${g * 5} is larger than 32 bits`);
    const n = Math.min(4, out.length - g * 4);
    for (let k = 0; k < n; k++) out[g * 4 + k] = (v >>> (24 - 8 * k)) & 0xff;
  }
  return out;
}
