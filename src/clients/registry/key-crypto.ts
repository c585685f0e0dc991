/**
 * The registry's key encryption, exactly as its spec gives it:
 * ChaCha20-Poly1305 with a random 12-byte nonce, key = SHA3-256(nonce ‖
 * subkey[0:48] ‖ be64(floor(now / 256))), associated data subkey[48:64],
 * text = base85(nonce ‖ ciphertext ‖ tag). A blob opens only in its 256-second
 * window; decryption may also try the previous one, for a response that
 * crossed a boundary, and says which it used.
 */
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { randomBytes } from 'node:crypto';
import { b85decode, b85encode } from './base85.ts';
import { checkRequiredOptions, optionNames } from '../../option-checks.ts';

const WINDOW_SECONDS = 256;
const SUBKEY_BYTES = 64;

export interface EncryptKeyOptions {
  /** UNIX seconds: the 256-second window the key is encrypted for. */
  now: number;
  /** 12 bytes (default: random). */
  nonce?: Uint8Array;
}
export const ENCRYPT_KEY_OPTIONS = optionNames<EncryptKeyOptions>()(['now', 'nonce']);

export interface DecryptKeyOptions {
  /** UNIX seconds: the window tried first. */
  now: number;
  /** Also try the window before (default true). */
  tryPrevious?: boolean;
}
export const DECRYPT_KEY_OPTIONS = optionNames<DecryptKeyOptions>()(['now', 'tryPrevious']);

function checkArgs(where: string, subkey: unknown, opts: object, known: readonly string[]): number {
  if (!(subkey instanceof Uint8Array) || subkey.length !== SUBKEY_BYTES) throw new TypeError(`subkey must be a Uint8Array of ${SUBKEY_BYTES} bytes`);
  checkRequiredOptions('opts', opts, where, known, 'must be an object with {now}');
  const now = (opts as { now?: unknown }).now;
  if (typeof now !== 'number' || !Number.isFinite(now)) throw new TypeError('opts.now must be a finite number of UNIX seconds');
  return now;
}

function deriveKey(nonce: Uint8Array, subkey: Uint8Array, window: number): Uint8Array {
  const input = new Uint8Array(12 + 48 + 8);
  input.set(nonce);
  input.set(subkey.subarray(0, 48), 12);
  new DataView(input.buffer).setBigUint64(60, BigInt(window));
  return sha3_256(input);
}

export function encryptKey(plain: Uint8Array, subkey: Uint8Array, opts: EncryptKeyOptions): string {
  if (!(plain instanceof Uint8Array)) throw new TypeError('plain must be a Uint8Array');
  const now = checkArgs('encryptKey', subkey, opts, ENCRYPT_KEY_OPTIONS);
  const nonce = opts.nonce ?? new Uint8Array(randomBytes(12));
  if (!(nonce instanceof Uint8Array) || nonce.length !== 12) throw new TypeError('opts.nonce must be 12 bytes');
  const key = deriveKey(nonce, subkey, Math.floor(now / WINDOW_SECONDS));
  const sealed = chacha20poly1305(key, nonce, subkey.subarray(48, 64)).encrypt(plain);
  const out = new Uint8Array(12 + sealed.length);
  out.set(nonce);
  out.set(sealed, 12);
  return b85encode(out);
}

/** The plaintext and the window that opened it: 'current', or 'previous' (one window back). */
export function decryptKeyDetailed(blob: string, subkey: Uint8Array, opts: DecryptKeyOptions): { plain: Uint8Array; window: 'current' | 'previous' } {
  return decrypt('decryptKeyDetailed', blob, subkey, opts);
}

export function decryptKey(blob: string, subkey: Uint8Array, opts: DecryptKeyOptions): Uint8Array {
  return decrypt('decryptKey', blob, subkey, opts).plain;
}

function decrypt(where: string, blob: string, subkey: Uint8Array, opts: DecryptKeyOptions): { plain: Uint8Array; window: 'current' | 'previous' } {
  const now = checkArgs(where, subkey, opts, DECRYPT_KEY_OPTIONS);
  if (typeof blob !== 'string') throw new TypeError('blob must be a string');
  const raw = b85decode(blob);
  if (raw.length < 12 + 16) throw new RangeError(`key blob too short: ${raw.length} bytes, at least 28 needed`);
  const nonce = raw.subarray(0, 12);
  const sealed = raw.subarray(12);
  const w = Math.floor(now / WINDOW_SECONDS);
  const tries: ['current' | 'previous', number][] = [['current', w]];
  if (opts.tryPrevious !== false) tries.push(['previous', w - 1]);
  for (const [name, win] of tries) {
    try {
      return { plain: chacha20poly1305(deriveKey(nonce, subkey, win), nonce, subkey.subarray(48, 64)).decrypt(sealed), window: name };
    } catch {
      // wrong window (or wrong subkey): try the next, then fail below
    }
  }
  throw new RangeError('key blob does not open with this subkey in the current (or previous) 256-second window');
}
