/** The registry's records as the client returns them, and the checks of what the registry sent for them (a ProtocolError naming the route when a field is missing or of the wrong type). */
import { checkObject } from '../http/shapes.ts';

export interface KeyMaterial {
  /** The prime's key, encrypted for the current 256-second window. */
  key: string;
  /** base85 of the 64-byte subkey. */
  subkey: string;
  /** The TOTP key, encrypted like `key`. */
  totp_key: string;
  totp_ts: number;
}

/** GET /prime's record, in camelCase (the registry's old_mbits/old_mtrans, whose meaning its spec does not show). */
export interface PrimeRecord {
  bits: number;
  trans: number;
  oldMbits?: number;
  oldMtrans?: number;
  note?: string;
  /** UNIX seconds of the registration, as the registry gives it. */
  claimed: number;
  next?: string;
  prev?: string;
}

/** POST /add's and /rekey's answer. */
export function checkKeyMaterial(route: string, v: unknown): KeyMaterial {
  const o = checkObject(route, v, { key: 'string', subkey: 'string', totp_key: 'string', totp_ts: 'number' });
  return { key: o.key as string, subkey: o.subkey as string, totp_key: o.totp_key as string, totp_ts: o.totp_ts as number };
}

/** GET /prime's answer, old_mbits and old_mtrans renamed. */
export function checkPrimeRecord(route: string, v: unknown): PrimeRecord {
  const o = checkObject(route, v, { bits: 'number', trans: 'number', claimed: 'number' }, { old_mbits: 'number', old_mtrans: 'number', note: 'string', next: 'string', prev: 'string' });
  const { old_mbits, old_mtrans, ...rest } = o as Record<string, unknown>;
  return {
    ...(rest as Omit<PrimeRecord, 'oldMbits' | 'oldMtrans'>),
    ...(old_mbits !== undefined ? { oldMbits: old_mbits as number } : {}),
    ...(old_mtrans !== undefined ? { oldMtrans: old_mtrans as number } : {}),
  };
}
