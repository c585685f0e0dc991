/**
 * The local stand-in for the real services (offline development and the
 * tests): one node:http server; each service plugs in a handler for its
 * paths. Everything reads time from an injected clock, so tests can cover
 * days in seconds.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clients/clock.ts';

export interface FakeRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  /** Raw body ('' when none). */
  body: string;
  /** Client address, for per-address limits. */
  address: string;
}

export interface FakeResponse {
  status: number;
  headers?: Record<string, string | string[]>;
  /** Sent as JSON unless it is a Buffer. */
  body?: unknown;
}

/** A service's handler: a response, or null when the path is not its own. */
export type FakeHandler = (req: FakeRequest, clock: Clock) => FakeResponse | null | Promise<FakeResponse | null>;

export interface RunningServer {
  url: URL;
  server: Server;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function write(res: ServerResponse, r: FakeResponse): void {
  const isBuffer = Buffer.isBuffer(r.body);
  const payload = r.body === undefined ? '' : isBuffer ? (r.body as Buffer) : JSON.stringify(r.body);
  res.writeHead(r.status, {
    ...(isBuffer ? {} : { 'content-type': 'application/json' }),
    'content-length': String(Buffer.byteLength(payload)),
    ...r.headers,
  });
  res.end(payload);
}

export async function startServer(handlers: FakeHandler[], clock: Clock, port = 0, host = '127.0.0.1', onRequest?: (line: string) => void): Promise<RunningServer> {
  const server = createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      const fr: FakeRequest = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', `http://${req.headers.host ?? host}`),
        headers: req.headers,
        body,
        address: req.socket.remoteAddress ?? '',
      };
      let r: FakeResponse | null = null;
      for (const h of handlers) if (!r) r = await h(fr, clock);
      r ??= { status: 404, body: { error: 'no such route' } };
      onRequest?.(`${fr.method} ${fr.url.pathname} → ${r.status}`);
      write(res, r);
    } catch (err) {
      write(res, { status: 500, body: { error: `fake service failed: ${(err as Error).message}` } });
    }
  });
  // A taken port is an error for the caller (with its code), not a crash of the process.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  return {
    url: new URL(`http://${host}:${addr.port}`),
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
