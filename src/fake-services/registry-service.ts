/**
 * The prime registry as its spec describes it: TOTP (HMAC-SHA3-512, 256 s)
 * on every route but /totp, the key encryption, every error ident, neighbour
 * links, ranges and requirements. Its own choices where the spec is silent:
 * errors use status 400 (403 for totp, 404 for notexist and an unknown prime),
 * the TOTP goes in the JSON body or the query string, primes are decimal (or
 * 0x hex), and a prime meets the requirements of its range when it has at
 * least `requirements.bits` bits (the range's lower bound unless set).
 */
import { checkPrimeSync, randomBytes } from 'node:crypto';
import { b85encode } from '../clients/registry/base85.ts';
import type { Clock } from '../clients/clock.ts';
import { decryptKey, encryptKey } from '../clients/registry/key-crypto.ts';
import { totpCode } from '../clients/registry/totp.ts';
import type { FakeHandler, FakeRequest, FakeResponse } from './http-server.ts';

export interface FakeRegistryOptions {
  /** Extra bits required above a range's lower bound (default 0). */
  extraBits?: number;
  /** How long POST /add takes to answer, in ms (default 0): a registry far away, for tests of processes that share a keystore. */
  addDelayMs?: number;
}

interface Stored {
  prime: bigint;
  key: Uint8Array;
  subkey: Uint8Array;
  note: string;
  claimed: number;
}

const fail = (status: number, ident: string, error: string): FakeResponse => ({ status, body: { error, ident } });

export class FakeRegistryService {
  readonly totpKey: Uint8Array = new Uint8Array(randomBytes(32));
  private ts = 0;
  private readonly primes = new Map<string, Stored>();
  /** Successful adds, for tests. */
  readonly added: bigint[] = [];

  constructor(private readonly o: FakeRegistryOptions = {}) {}

  private parsePrime(v: unknown): bigint | null {
    if (typeof v !== 'string' || !/^(\d+|0x[0-9a-f]+)$/i.test(v)) return null;
    return BigInt(v);
  }

  /**
   * The TOTP where the spec puts it: the query string on GET /prime and
   * /ranges, the JSON body on requirements, add and note; either on rekey,
   * whose place the spec does not show. A client putting it elsewhere fails
   * here as it would against the registry.
   */
  private totpOk(req: FakeRequest, body: Record<string, unknown> | null, clock: Clock): boolean {
    const p = req.url.pathname;
    const inQuery = req.url.searchParams.get('totp') ?? undefined;
    const inBody = body?.totp as string | undefined;
    const code = /^\/api\/(prime\/|ranges$)/.test(p) ? inQuery : p === '/api/rekey' ? (inBody ?? inQuery) : inBody;
    if (typeof code !== 'string') return false;
    const now = clock.now() / 1000;
    // The current period or the one before (a request sent at a boundary).
    return [now, now - 256].some((t) => t >= this.ts && totpCode(this.totpKey, { t0: this.ts, now: t }) === code);
  }

  private material(s: Stored, clock: Clock): Record<string, unknown> {
    const now = clock.now() / 1000;
    return {
      key: encryptKey(s.key, s.subkey, { now }),
      subkey: b85encode(s.subkey),
      totp_key: encryptKey(this.totpKey, s.subkey, { now }),
      totp_ts: this.ts,
    };
  }

  private requiredBits(bits: number): number {
    return 2 ** Math.floor(Math.log2(bits)) + (this.o.extraBits ?? 0);
  }

  private sorted(): bigint[] {
    return [...this.primes.values()].map((s) => s.prime).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The service's handler: answer(), with POST /add held back by addDelayMs. */
  readonly handler: FakeHandler = (req, clock) => {
    const delay = this.o.addDelayMs ?? 0;
    if (delay > 0 && req.method === 'POST' && req.url.pathname === '/api/add') return new Promise((resolve) => setTimeout(resolve, delay)).then(() => this.answer(req, clock));
    return this.answer(req, clock);
  };

  private readonly answer: FakeHandler = (req, clock) => {
    const p = req.url.pathname;
    if (!p.startsWith('/api/')) return null;
    if (this.ts === 0) this.ts = Math.floor(clock.now() / 1000);
    let body: Record<string, unknown> | null = null;
    if (req.body) {
      try {
        body = JSON.parse(req.body) as Record<string, unknown>;
      } catch {
        return fail(400, 'json', 'body is not JSON');
      }
    }
    if (req.method === 'GET' && p === '/api/totp') return { status: 200, body: { key: b85encode(this.totpKey), ts: this.ts } };
    const known = /^\/api\/(requirements\/(all|\d+)|add|note|prime\/[^/]+|rekey|ranges)$/.test(p);
    if (!known) return null;
    if (!this.totpOk(req, body, clock)) return fail(403, 'totp', 'TOTP invalid or missing');
    let m: RegExpMatchArray | null;
    if (req.method === 'GET' && (m = p.match(/^\/api\/requirements\/(all|\d+)$/))) {
      const bits = m[1] === 'all' ? 16 : Number(m[1]);
      return { status: 200, body: { bits: this.requiredBits(bits), trans: 0 } };
    }
    if (req.method === 'POST' && p === '/api/add') {
      const prime = this.parsePrime(body?.prime);
      if (prime === null) return fail(400, 'json', 'prime must be a decimal or 0x string');
      if (this.primes.has(prime.toString())) return fail(400, 'registered', 'prime already registered');
      if (prime < 5n || !checkPrimeSync(prime) || !checkPrimeSync(prime >> 1n)) return fail(400, 'notprime', 'not an accepted (safe) prime');
      const bits = prime.toString(2).length;
      if (bits < this.requiredBits(bits)) return fail(400, 'requirements', 'prime does not meet the requirements of its bit range');
      const s: Stored = { prime, key: new Uint8Array(randomBytes(32)), subkey: new Uint8Array(randomBytes(64)), note: '', claimed: Math.floor(clock.now() / 1000) };
      this.primes.set(prime.toString(), s);
      this.added.push(prime);
      return { status: 200, body: this.material(s, clock) };
    }
    if (req.method === 'POST' && (p === '/api/note' || p === '/api/rekey')) {
      const prime = this.parsePrime(body?.prime);
      if (prime === null || typeof body?.key !== 'string') return fail(400, 'json', 'prime and key are required');
      const s = this.primes.get(prime.toString());
      if (!s) return fail(404, 'notexist', 'the prime does not exist');
      let opened: Uint8Array;
      try {
        opened = decryptKey(body.key, s.subkey, { now: clock.now() / 1000, tryPrevious: false });
      } catch {
        return fail(400, 'json', 'key does not open for this prime in the current window');
      }
      if (Buffer.compare(Buffer.from(opened), Buffer.from(s.key)) !== 0) return fail(400, 'json', 'wrong key');
      if (p === '/api/rekey') {
        s.key = new Uint8Array(randomBytes(32));
        s.subkey = new Uint8Array(randomBytes(64));
        return { status: 200, body: this.material(s, clock) };
      }
      if (typeof body.note !== 'string') return fail(400, 'json', 'note must be a string');
      const prev = s.note;
      s.note = body.note;
      return { status: 200, body: { success: 'note replaced', prev_note: prev } };
    }
    if (req.method === 'GET' && (m = p.match(/^\/api\/prime\/([^/]+)$/))) {
      const prime = this.parsePrime(decodeURIComponent(m[1]!));
      const s = prime === null ? undefined : this.primes.get(prime.toString());
      if (!s) return fail(404, 'notexist', 'the prime does not exist');
      const all = this.sorted();
      const i = all.indexOf(s.prime);
      const bits = s.prime.toString(2).length;
      return {
        status: 200,
        body: {
          bits,
          trans: 0,
          old_mbits: bits,
          old_mtrans: 0,
          note: s.note,
          claimed: s.claimed,
          ...(i + 1 < all.length ? { next: all[i + 1]!.toString() } : {}),
          ...(i > 0 ? { prev: all[i - 1]!.toString() } : {}),
        },
      };
    }
    if (req.method === 'GET' && p === '/api/ranges') {
      const all = this.sorted();
      return { status: 200, body: { from: (all[0] ?? 0n).toString(), to: (all[all.length - 1] ?? 0n).toString() } };
    }
    return null;
  };

  /** A key for a prime as the registry holds it (tests compare it with the client's keystore). */
  keyOf(prime: bigint): Uint8Array | undefined {
    return this.primes.get(prime.toString())?.key;
  }

  /** Gives a prime a new key, as a rekey by another holder of its key would (tests: a stored key gone void). */
  replaceKey(prime: bigint): void {
    const s = this.primes.get(prime.toString());
    if (s) s.key = new Uint8Array(randomBytes(32));
  }
}
