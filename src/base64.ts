/** Base64 decoding for the committed WebAssembly modules; no Node built-ins, as browsers' Web Workers load it too. */
export function decodeBase64(text: string): Uint8Array {
  // atob is in Node 16+, Bun, Deno and browsers; declared here so no DOM or Node types are needed.
  const atob = (globalThis as { atob?: (s: string) => string }).atob;
  if (typeof atob === 'function') return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const clean = text.replace(/=+$/, '');
  const out = new Uint8Array((clean.length * 3) >> 2);
  let bits = 0;
  let value = 0;
  let n = 0;
  for (const c of clean) {
    value = (value << 6) | alphabet.indexOf(c);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (value >> bits) & 0xff;
    }
  }
  return out;
}
