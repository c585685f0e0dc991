/**
 * The few cookies the services set (the question service's `__Host-session`).
 * Hand-written rather than tough-cookie because `__Host-` cookies must be
 * Secure, and the local test server speaks plain http on loopback: this jar
 * treats loopback as secure, as browsers do. Optionally saved to a file.
 */
import type { Clock } from '../clock.ts';
import { writeFileAtomic, readJsonState } from './state-file.ts';
import { isLoopback } from './transport.ts';

interface Cookie {
  name: string;
  value: string;
  host: string;
  path: string;
  secure: boolean;
  /** ms since the epoch; null: a session cookie. */
  expires: number | null;
}

export class CookieJar {
  private cookies: Cookie[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly file?: string,
  ) {
    // A corrupt jar only costs a new session.
    if (file) this.cookies = (readJsonState(file, 'set-aside') as Cookie[] | undefined) ?? [];
  }

  /** Records the Set-Cookie headers of a response from `url`. */
  store(url: URL, setCookie: string | string[] | undefined): void {
    if (!setCookie) return;
    const secureContext = url.protocol === 'https:' || isLoopback(url);
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
      this.cookies = this.cookies.filter((c) => !(c.name === cookie.name && c.host === cookie.host && c.path === cookie.path));
      if (cookie.expires === null || cookie.expires > this.clock.now()) this.cookies.push(cookie);
    }
    this.save();
  }

  /** The Cookie header for a request to `url`, or undefined. */
  header(url: URL): string | undefined {
    const now = this.clock.now();
    const secureContext = url.protocol === 'https:' || isLoopback(url);
    const matching = this.cookies.filter(
      (c) => c.host === url.hostname && url.pathname.startsWith(c.path) && (!c.secure || secureContext) && (c.expires === null || c.expires > now),
    );
    return matching.length ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  private save(): void {
    if (this.file) writeFileAtomic(this.file, JSON.stringify(this.cookies));
  }
}
