/** The public `sha256()`: one message hashed by the kernel asked for, native or the TS one in ./sha256.ts. */
import { native } from '../native.ts';
import { checkOptions, optionNames } from '../option-checks.ts';
import { sha256 as sha256Js } from './sha256.ts';
import { argumentError, checkOneOf, show } from '../validate.ts';

export interface Sha256Options {
  /**
   * 'js', or a native message hasher ('sha-ni', 'scalar'; AVX2 and AVX-512 only search proof-of-work groups).
   * Default: the fastest native kernel, or 'js' without the addon.
   */
  kernel?: string;
}

/** Every option of sha256: any other key is refused. */
export const SHA256_OPTIONS = optionNames<Sha256Options>()(['kernel']);

/**
 * Every kernel name powprime has, on any CPU (native/sha256/): a name not
 * among them is a slip, said as such rather than "not usable on this machine".
 */
const KERNEL_NAMES: readonly string[] = ['js', 'scalar', 'sha-ni', 'sha-ni-x5', 'armv8-sha2', 'avx2', 'avx512', 'avx512-lean', 'avx512-spare'];

/** SHA-256 of `data`, computed by the selected kernel. */
export function sha256(data: Uint8Array, opts?: Sha256Options): Uint8Array {
  if (!(data instanceof Uint8Array)) throw argumentError(TypeError, 'data', `must be a Uint8Array (got ${show(data)})`);
  if (isDetached(data)) throw argumentError(TypeError, 'data', 'is detached: its ArrayBuffer was transferred, so it holds nothing to hash');
  const options: Sha256Options = checkOptions('options', opts, 'sha256', SHA256_OPTIONS);
  const kernel = options.kernel === undefined ? undefined : checkOneOf('kernel', options.kernel, KERNEL_NAMES);
  const n = native();
  if (kernel === 'js' || (kernel === undefined && !n)) return sha256Js(data);
  if (!n) throw new RangeError(`kernel '${kernel}' is unavailable: the native addon is not loaded`);
  return n.sha256(data, kernel);
}

/**
 * A view of a transferred (detached) buffer reads as empty: hashed, it would
 * give the empty message's digest in place of the bytes the caller meant.
 * Only an empty view can be detached; making a view of its buffer throws then.
 */
function isDetached(data: Uint8Array): boolean {
  if (data.byteLength !== 0) return false;
  try {
    new Uint8Array(data.buffer);
    return false;
  } catch {
    return true;
  }
}
