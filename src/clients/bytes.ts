/**
 * The type of the bytes the clients hand back (downloaded files, response
 * bodies). At run time they are Node Buffers. The published declarations must
 * compile without Node's types (TypeScript 7 no longer loads an installed
 * `@types/node` unless `types` lists it, and a browser project has none), so
 * this names Buffer only where the consumer's program has it and falls back
 * to Uint8Array, which Buffer extends, where it does not.
 */
export type Bytes = typeof globalThis extends { Buffer: { prototype: infer B } } ? B : Uint8Array;
