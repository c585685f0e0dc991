/**
 * HTTP on undici.request: the question service's `answers` and `page`
 * routes are GETs with a JSON body, which fetch() refuses. Every response
 * body is read to the end (so connections are reused), bounded in size, and
 * failures become typed errors naming the route.
 */
import { packageVersion } from '../../package-root.ts';
import { connect } from 'node:net';
import { ProtocolError, RequestTimeoutError, ResponseTooLargeError } from '../errors.ts';
import { NetworkError } from '../network-error.ts';
import type { Bytes } from '../bytes.ts';
import { linkSignals } from './linked-signal.ts';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  /** Sent as a JSON body (also on GET). */
  json?: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
  /** Largest body accepted, in bytes. */
  maxBytes?: number;
  signal?: AbortSignal;
  /** Name used in errors, e.g. "GET /gpt/api/config". */
  route: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Bytes;
}

const USER_AGENT = `powprime/${packageVersion()} (node ${process.versions.node})`;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export async function send(req: HttpRequest): Promise<HttpResponse> {
  // Loaded at the first request, not at import: commands and library users
  // that never call a service do not pay for undici's start-up.
  const { errors: undiciErrors, request } = await import('undici');
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json, */*', ...req.headers };
  let body: string | undefined;
  if (req.json !== undefined) {
    body = JSON.stringify(req.json);
    headers['content-type'] = 'application/json';
  }
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const linked = req.signal ? linkSignals([req.signal, timeout]) : null;
  const signal = linked?.signal ?? timeout;
  let answered = false;
  try {
    const res = await request(req.url, {
      method: req.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      signal,
    });
    answered = true;
    const limit = req.maxBytes ?? DEFAULT_MAX_BYTES;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        res.body.destroy();
        // Not transient: the same request would fetch the same body again.
        throw new ResponseTooLargeError(req.route, limit, res.statusCode);
      }
      chunks.push(chunk as Buffer);
    }
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) };
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    if (req.signal?.aborted) throw req.signal.reason;
    if (timeout.aborted || err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
      throw new RequestTimeoutError(req.route, req.timeoutMs);
    }
    // A connection dropped after the status line cut the body short; before it, there was no answer at all.
    if (answered && (err instanceof undiciErrors.ResponseContentLengthMismatchError || (err as { code?: string }).code === 'UND_ERR_SOCKET')) {
      throw new ProtocolError(req.route, `truncated response: ${(err as Error).message}`);
    }
    throw new NetworkError(req.route, err, req.url.host);
  } finally {
    linked?.dispose();
  }
}

/**
 * Whether a TCP connection to the URL's host and port can be made (a connect,
 * closed at once: no request, so no rate-limit budget is spent). Resolves to
 * the error when the host refused it or cannot be reached (a NetworkError
 * with `connected: false` naming `route`), else to null: connected, or no
 * word within `timeoutMs` (a host that drops packets says nothing either
 * way). Rejects with the signal's reason on abort.
 */
export function probe(url: URL, route: string, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<NetworkError | null> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(opts.signal.reason);
    const socket = connect({ host, port });
    const done = (): void => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
    };
    const onAbort = (): void => {
      done();
      reject(opts.signal!.reason);
    };
    const timer = setTimeout(() => {
      done();
      resolve(null);
    }, opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      done();
      resolve(null);
    });
    socket.once('error', (err) => {
      done();
      const failed = new NetworkError(route, err, url.host);
      resolve(failed.connected ? null : failed);
    });
  });
}

/** The body as JSON, or a ProtocolError naming the route. */
export function parseJson(res: HttpResponse, route: string): unknown {
  const text = res.body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    const shown = text.length > 120 ? `${text.slice(0, 120)}…` : text;
    throw new ProtocolError(route, `expected JSON, got ${JSON.stringify(shown)}`, res.status);
  }
}

/** True for http(s) URLs on this machine: only those may run without rate limits. */
export function isLoopback(url: URL): boolean {
  const h = url.hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
