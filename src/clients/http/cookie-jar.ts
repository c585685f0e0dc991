/**
 * The few cookies the services set (the question service's `__Host-session`).
 * Hand-written rather than tough-cookie, which refuses a `__Host-` cookie
 * that is not Secure with Path=/ and a Secure one over plain http on
 * loopback (the local test server). The spec shows the cookie's name only,
 * not its attributes, so this jar keeps a `__Host-` cookie whatever they are:
 * the prefix guards a browser against a sibling host planting the cookie,
 * and this jar keys every cookie on the one host that set it. Loopback counts
 * as secure, as in browsers. Optionally saved to a file.
 */
import type { Clock } from '../clock.ts';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import { readJsonState, type ShapeCheck } from './state-file.ts';
import { isLoopback } from './transport.ts';
import { lockWaitSync } from '../../fs/lock-wait.ts';

interface Cookie {
  name: string;
  value: string;
  host: string;
  path: string;
  secure: boolean;
  /** ms since the epoch; null: a session cookie. */
  expires: number | null;
}

/** The jar file's shape: a list of cookies. */
const cookieListShape: ShapeCheck = (x) => {
  if (!Array.isArray(x)) return 'is not a list of cookies';
  const bad = x.findIndex(
    (c: Partial<Cookie> | null) =>
      c === null ||
      typeof c !== 'object' ||
      typeof c.name !== 'string' ||
      typeof c.value !== 'string' ||
      typeof c.host !== 'string' ||
      typeof c.path !== 'string' ||
      typeof c.secure !== 'boolean' ||
      !(c.expires === null || typeof c.expires === 'number'),
  );
  return bad >= 0 ? `has a cookie of the wrong shape (entry ${bad + 1})` : undefined;
};

const same = (a: Cookie, b: Cookie): boolean => a.name === b.name && a.host === b.host && a.path === b.path;

export class CookieJar {
  private cookies: Cookie[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly file?: string,
    /** Read `file` once and keep changes in memory (a state dir this process cannot write; see RateLimiter's readOnly). */
    private readonly readOnly = false,
  ) {
    // A corrupt jar only costs a new session.
    if (file) this.cookies = readOnly ? this.readIfAllowed(file) : this.read(file);
  }

  /** read() where nothing may be written and the file may be unreadable: a jar it cannot read or set aside is an empty one (a new session). */
  private readIfAllowed(file: string): Cookie[] {
    try {
      return this.read(file);
    } catch (err) {
      if (!['EACCES', 'EPERM', 'EROFS'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
      return [];
    }
  }

  /** Records the Set-Cookie headers of a response from `url`. */
  store(url: URL, setCookie: string | string[] | undefined): void {
    if (!setCookie) return;
    const secureContext = url.protocol === 'https:' || isLoopback(url);
    const changed: Cookie[] = [];
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      if (eq <= 0) continue;
      const cookie: Cookie = { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), host: url.hostname, path: '/', secure: false, expires: null };
      let maxAge: number | null = null;
      for (const attr of attrs) {
        const [k, ...rest] = attr.split('=');
        const key = k!.toLowerCase().trim();
        const v = rest.join('=').trim();
        if (key === 'secure') cookie.secure = true;
        else if (key === 'path') cookie.path = v.startsWith('/') ? v : '/';
        // Max-Age wins over Expires (RFC 6265 5.3); a value that is no number or date is ignored.
        else if (key === 'max-age' && /^-?\d+$/.test(v)) maxAge = Number(v);
        else if (key === 'expires' && !Number.isNaN(Date.parse(v))) cookie.expires = Date.parse(v);
      }
      if (maxAge !== null) cookie.expires = this.clock.now() + Math.max(0, maxAge) * 1000;
      if (cookie.secure && !secureContext) continue;
      changed.push(cookie);
    }
    if (changed.length) this.save(changed);
  }

  /** The Cookie header for a request to `url`, or undefined. */
  header(url: URL): string | undefined {
    const now = this.clock.now();
    const secureContext = url.protocol === 'https:' || isLoopback(url);
    const matching = this.cookies.filter((c) => c.host === url.hostname && url.pathname.startsWith(c.path) && (!c.secure || secureContext) && (c.expires === null || c.expires > now));
    return matching.length ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  private read(file: string): Cookie[] {
    return (readJsonState(file, 'set-aside', cookieListShape) as Cookie[] | undefined) ?? [];
  }

  /**
   * Applies `changed` (a cookie with an expiry in the past removes its
   * name). With a file, under its lock, onto what the file holds now:
   * another process's session cookie, saved since this one read the
   * file, is kept rather than written over.
   */
  private save(changed: Cookie[]): void {
    const apply = (list: Cookie[]): Cookie[] => {
      let out = list;
      for (const c of changed) {
        out = out.filter((x) => !same(x, c));
        if (c.expires === null || c.expires > this.clock.now()) out.push(c);
      }
      return out;
    };
    if (!this.file || this.readOnly) {
      this.cookies = apply(this.cookies);
      return;
    }
    const lockFile = `${this.file}.lock`;
    const lock = lockWaitSync(lockFile, this.file, 10_000);
    try {
      this.cookies = apply(this.read(this.file));
      writeFileAtomic(this.file, JSON.stringify(this.cookies));
    } finally {
      lock.release();
    }
  }
}
