/**
 * The few cookies the services set (the question service's `__Host-session`).
 * Hand-written rather than tough-cookie because `__Host-` cookies must be
 * Secure, and the local test server speaks plain http on loopback: this jar
 * treats loopback as secure, as browsers do. Optionally saved to a file.
 */
import type { Clock } from '../clock.ts';
import { writeFileAtomic, readJsonState, type ShapeCheck } from './state-file.ts';
import { isLoopback } from './transport.ts';
import { lockHolderText, lockWaitSync } from '../../fs/file-lock.ts';
import { FileLockedError } from '../../errors.ts';

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
  ) {
    // A corrupt jar only costs a new session.
    if (file) this.cookies = this.read(file);
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
      let hasDomain = false;
      for (const attr of attrs) {
        const [k, ...rest] = attr.split('=');
        const key = k!.toLowerCase();
        const v = rest.join('=');
        if (key === 'secure') cookie.secure = true;
        else if (key === 'path') cookie.path = v || '/';
        else if (key === 'domain') hasDomain = true;
        else if (key === 'max-age') cookie.expires = this.clock.now() + Number(v) * 1000;
        else if (key === 'expires' && cookie.expires === null) cookie.expires = Date.parse(v);
      }
      if (cookie.secure && !secureContext) continue;
      if (cookie.name.startsWith('__Host-') && (!cookie.secure || hasDomain || cookie.path !== '/')) continue;
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
    if (!this.file) {
      this.cookies = apply(this.cookies);
      return;
    }
    const lockFile = `${this.file}.lock`;
    const lock = lockWaitSync(lockFile, this.file, 10_000);
    if (!lock) throw new FileLockedError(this.file, lockHolderText(lockFile));
    try {
      this.cookies = apply(this.read(this.file));
      writeFileAtomic(this.file, JSON.stringify(this.cookies));
    } finally {
      lock.release();
    }
  }
}
