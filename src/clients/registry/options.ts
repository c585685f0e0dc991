/** What a PrimeRegistryClient is configured with beside every client's options: the choices the registry's spec leaves open, their checks and defaults. */
import { optionNames } from '../../option-checks.ts';
import { checkOneOf } from '../../validate.ts';
import { optionalNumber, type ClientOptionNames, type ServiceClientOptions } from '../http/client-options.ts';

export interface RegistryClientOptions extends ServiceClientOptions {
  /**
   * How to read GET /totp's `ts`: 't0' (default) — the reference time, counter
   * = floor((now − ts)/256); 'server-clock' — the server's current time, so
   * the local clock is corrected by the offset and counter = floor(server now/256).
   */
  totpReading?: 't0' | 'server-clock';
  /** Code length (default 6; the spec does not show it). */
  totpDigits?: number;
  /** Where the TOTP goes on GET routes other than /totp (default: 'query'; requirements: 'body', as the spec states). */
  totpOnGet?: 'query' | 'body';
  /** Primes in bodies and paths as 'decimal' (default) or '0x' hex. */
  primeEncoding?: 'decimal' | 'hex';
  /** Where POST /rekey carries the TOTP: 'body' (default, beside prime and key) or 'query'. */
  rekeyTotpIn?: 'body' | 'query';
}

/** PrimeRegistryClient's options beside every client's: any other key is refused. */
export const REGISTRY_CLIENT_OPTIONS: ClientOptionNames = {
  client: 'PrimeRegistryClient',
  own: optionNames<Omit<RegistryClientOptions, keyof ServiceClientOptions>>()(['totpReading', 'totpDigits', 'totpOnGet', 'primeEncoding', 'rekeyTotpIn']),
};

/** The client's own options, each given or its default. */
export type RegistryOwnOptions = Required<Omit<RegistryClientOptions, keyof ServiceClientOptions>>;

/** `opts`' own options checked (a TypeError or RangeError naming the option), defaults filled in. */
export function registryOptions(opts: RegistryClientOptions): RegistryOwnOptions {
  const oneOf = <T extends string>(name: keyof RegistryClientOptions, allowed: readonly T[], fallback: T): T => (opts[name] === undefined ? fallback : checkOneOf(name, opts[name], allowed));
  optionalNumber(opts, 'totpDigits', (n) => Number.isInteger(n) && n >= 1 && n <= 10, 'a whole number from 1 to 10');
  return {
    totpReading: oneOf('totpReading', ['t0', 'server-clock'], 't0'),
    totpDigits: opts.totpDigits ?? 6,
    totpOnGet: oneOf('totpOnGet', ['query', 'body'], 'query'),
    primeEncoding: oneOf('primeEncoding', ['decimal', 'hex'], 'decimal'),
    rekeyTotpIn: oneOf('rekeyTotpIn', ['body', 'query'], 'body'),
  };
}
