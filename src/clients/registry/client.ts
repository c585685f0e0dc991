/**
 * Client for the prime registry: every route, a TOTP computed per request from GET /totp,
 * `{error, ident}` turned into typed errors. The spec leaves open where the TOTP goes on GET
 * routes and how primes are encoded; both are options here, with documented defaults.
 */
import { REGISTRY_ROUTES, type RegistryRoute } from './routes.ts';
import { b85decode } from './base85.ts';
import { ProtocolError, type ServiceError } from '../errors.ts';
import { knownIdent, NotExistError, RegistryError, registryError, TotpError } from './errors.ts';
import { ServiceClient, type CallSpec } from '../http/service-client.ts';
import { registryOptions, REGISTRY_CLIENT_OPTIONS, type RegistryClientOptions, type RegistryOwnOptions } from './options.ts';
import { checkKeyMaterial, checkPrimeRecord, type KeyMaterial, type PrimeRecord } from './records.ts';
import { totpCode } from './totp.ts';
import type { HttpResponse } from '../http/transport.ts';
import { checkObject } from '../http/shapes.ts';
import { argumentError, show } from '../../validate.ts';

export class PrimeRegistryClient extends ServiceClient<RegistryRoute> {
  private totp: { key: Uint8Array; ts: number; offset: number } | null = null;
  private readonly ro: RegistryOwnOptions;

  constructor(opts: RegistryClientOptions) {
    super('registry', REGISTRY_ROUTES, opts, REGISTRY_CLIENT_OPTIONS);
    this.ro = registryOptions(opts);
  }

  /** The TOTP on a GET route other than requirements: query string or JSON body, per totpOnGet. */
  private totpOnGet(totp: string): { query: Record<string, string> } | { json: { totp: string } } {
    return this.ro.totpOnGet === 'query' ? { query: { totp } } : { json: { totp } };
  }

  encodePrime(p: bigint): string {
    if (typeof p !== 'bigint') throw argumentError(TypeError, 'prime', `must be a bigint (got ${show(p)})`);
    if (p < 2n) throw argumentError(RangeError, 'prime', `must be at least 2 (got ${show(p)})`);
    return this.ro.primeEncoding === 'hex' ? `0x${p.toString(16)}` : p.toString();
  }

  /** GET /totp: the key and reference timestamp. */
  async totpInfo(): Promise<{ key: Uint8Array; ts: number }> {
    const route = this.label('totp');
    const res = await this.call({ route: 'totp' });
    const o = checkObject(route, this.json(res, route), { key: 'string', ts: 'number' });
    let key: Uint8Array;
    try {
      key = b85decode(o.key as string);
    } catch (err) {
      throw new ProtocolError(route, `totp key is not base85: ${(err as Error).message}`);
    }
    this.totp = { key, ts: o.ts as number, offset: (o.ts as number) - this.clock.now() / 1000 };
    return { key, ts: o.ts as number };
  }

  /** The TOTP for this moment (GET /totp first, once). */
  async code(): Promise<string> {
    if (!this.totp) await this.totpInfo();
    return this.codeNow();
  }

  private codeNow(): string {
    const t = this.totp!;
    const now = this.clock.now() / 1000;
    return this.ro.totpReading === 't0' ? totpCode(t.key, { t0: t.ts, now, digits: this.ro.totpDigits }) : totpCode(t.key, { t0: 0, now: now + t.offset, digits: this.ro.totpDigits });
  }

  /**
   * A call that needs a TOTP, its body made as the request goes out (after
   * any wait: a code is good for 256 seconds); a `totp` error once refreshes
   * GET /totp and tries again.
   */
  private async withTotp(spec: CallSpec<RegistryRoute>, body: (totp: string) => { json?: unknown; query?: Record<string, string> }): Promise<HttpResponse> {
    const attempt = async (): Promise<HttpResponse> => {
      if (!this.totp) await this.totpInfo();
      return this.call({ ...spec, late: () => body(this.codeNow()) });
    };
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof TotpError)) throw err;
      await this.totpInfo();
      return attempt();
    }
  }

  /**
   * `{error, ident}` as the typed error of its ident. The spec shows no
   * status codes, so a known ident is the registry's answer at any status (a
   * 500 saying notprime is not worth a retry); a 5xx without one is a
   * ServerError, retried; a 429 is the limiter's.
   */
  protected override statusError(route: string, res: HttpResponse): ServiceError {
    if (res.status === 429) return super.statusError(route, res);
    type ErrorBody = { error?: unknown; ident?: unknown };
    let body: ErrorBody | null = null;
    try {
      const v = JSON.parse(res.body.toString('utf8')) as unknown;
      if (v && typeof v === 'object') body = v as ErrorBody;
    } catch {
      // not JSON: the generic error below
    }
    const ident = typeof body?.ident === 'string' ? body.ident : null;
    const message = typeof body?.error === 'string' ? body.error : null;
    if (knownIdent(ident) || (res.status < 500 && (ident !== null || message !== null))) return registryError(route, res.status, message, ident);
    return super.statusError(route, res);
  }

  async requirements(bits?: number): Promise<{ bits: number; trans: number }> {
    if (bits !== undefined && (!Number.isInteger(bits) || bits < 1)) throw argumentError(RangeError, 'bits', `must be a positive integer (got ${show(bits)})`);
    const which = bits === undefined ? 'all' : String(bits);
    const route = this.label('requirements', { bits: which });
    const res = await this.withTotp({ route: 'requirements', params: { bits: which } }, (totp) => ({ json: { totp } }));
    const o = checkObject(route, this.json(res, route), { bits: 'number', trans: 'number' });
    return { bits: o.bits as number, trans: o.trans as number };
  }

  /** POST /add. Never retried by the HTTP layer: the key material comes only once. */
  async add(prime: bigint, metadata: Record<string, unknown> = {}): Promise<KeyMaterial> {
    const route = this.label('add');
    const encoded = this.encodePrime(prime);
    const res = await this.withTotp({ route: 'add', noRetry: true }, (totp) => ({ json: { ...metadata, prime: encoded, totp } }));
    return checkKeyMaterial(route, this.json(res, route));
  }

  /**
   * POST /note with the key encrypted for the current window. `key` may be a
   * function that encrypts it, called as each request is made: a wait for a
   * slot or a TOTP retry may cross into the next 256-second window.
   */
  async note(prime: bigint, key: string | (() => string), note: string): Promise<{ success: string; prevNote: string }> {
    if (typeof note !== 'string') throw argumentError(TypeError, 'note', `must be a string (got ${show(note)})`);
    const route = this.label('note');
    const encoded = this.encodePrime(prime);
    const res = await this.withTotp({ route: 'note', noRetry: true }, (totp) => ({ json: { prime: encoded, key: keyNow(key), note, totp } }));
    const o = checkObject(route, this.json(res, route), { success: 'string' }, { prev_note: 'string' });
    return { success: o.success as string, prevNote: (o.prev_note as string | undefined) ?? '' };
  }

  /** GET /prime/<p>, or null when the registry does not hold it. */
  async prime(prime: bigint): Promise<PrimeRecord | null> {
    const route = this.label('prime');
    try {
      const res = await this.withTotp({ route: 'prime', params: { p: this.encodePrime(prime) } }, (totp) => this.totpOnGet(totp));
      return checkPrimeRecord(route, this.json(res, route));
    } catch (err) {
      // "Response when the prime is not registered: not shown": ident
      // notexist, or a 404 that is the registry's own error (the spec's
      // `{error, ident}`, an ident included), means absent. Any other 404 (a
      // proxy's page, a gateway's `{"error": "Not Found"}` at a wrong base URL)
      // is thrown: read as "absent", it would mark keys as never sent.
      if (err instanceof NotExistError) return null;
      if (err instanceof RegistryError && err.status === 404 && err.ident !== null) return null;
      throw err;
    }
  }

  /** POST /rekey; `key` as for note(). */
  async rekey(prime: bigint, key: string | (() => string)): Promise<KeyMaterial> {
    const route = this.label('rekey');
    const encoded = this.encodePrime(prime);
    const res = await this.withTotp({ route: 'rekey', noRetry: true }, (totp) =>
      this.ro.rekeyTotpIn === 'body' ? { json: { prime: encoded, totp, key: keyNow(key) } } : { json: { prime: encoded, key: keyNow(key) }, query: { totp } },
    );
    return checkKeyMaterial(route, this.json(res, route));
  }

  async ranges(): Promise<{ from: bigint; to: bigint }> {
    const route = this.label('ranges');
    const res = await this.withTotp({ route: 'ranges' }, (totp) => this.totpOnGet(totp));
    const o = checkObject(route, this.json(res, route), { from: 'string', to: 'string' });
    try {
      return { from: BigInt(o.from as string), to: BigInt(o.to as string) };
    } catch {
      throw new ProtocolError(route, 'from/to are not whole numbers');
    }
  }
}

/** The encrypted key for a request made now. */
function keyNow(key: string | (() => string)): string {
  const k = typeof key === 'function' ? key() : key;
  if (typeof k !== 'string' || k === '') throw argumentError(TypeError, 'key', `must be the encrypted key (got ${show(k)})`);
  return k;
}
