export function messages(): Uint8Array[];
export function nonces(): string[];
export function numbers(): bigint[];
export const SEARCH: { bits: number; seed: bigint; count: number };
