/**
 * How the committed WebAssembly modules (the PoW kernel, the prime backend's
 * modular exponentiation) load: their base64 decoded, compiled and
 * instantiated synchronously, once per thread. No Node built-ins, as
 * browsers' Web Workers load it too.
 */

/** The module's bytes from the base64 its generated file holds. */
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

/** The little of the WebAssembly API used here, declared so that no DOM or Node types are needed to compile this file. */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

/**
 * The exports of `bytes`, a module with no imports, compiled and instantiated
 * here; throws saying why where the runtime has no WebAssembly or refuses
 * the module (`needs`: the features it uses, named in that message).
 */
export function instantiateWasm(bytes: Uint8Array, needs: string): unknown {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (typeof wasm !== 'object') throw new Error('WebAssembly is not available in this runtime');
  if (!wasm.validate(bytes)) throw new Error(`this runtime refuses the module (no ${needs}?)`);
  return new wasm.Instance(new wasm.Module(bytes), {}).exports;
}

/**
 * `load` run on first use in this thread and its result kept: `get` gives it,
 * or null where it threw, and `error` the message it threw with (or null).
 */
export function loadOnce<T>(load: () => T): { get(): T | null; error(): string | null } {
  let loaded: T | null | undefined;
  let loadError: string | null = null;
  const get = (): T | null => {
    if (loaded !== undefined) return loaded;
    try {
      loaded = load();
    } catch (e) {
      loaded = null;
      loadError = e instanceof Error ? e.message : String(e);
    }
    return loaded;
  };
  return {
    get,
    error() {
      get();
      return loadError;
    },
  };
}
