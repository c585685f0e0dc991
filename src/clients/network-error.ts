/**
 * NetworkError: a connection that failed, told apart as the retry logic
 * needs it, unreached (refused, DNS, TLS: not retried, nothing spent) or
 * dropped (the request may have arrived), with the system's code in words.
 */
import { PowprimeError } from '../errors.ts';

/**
 * Failures that happen before a request is sent, so the service never saw
 * it: refused, no such host, no route, or a TLS handshake that failed. The
 * service is down or misaddressed; retrying at once will not help, and no
 * rate-limit budget was spent.
 */
const NOT_CONNECTED: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  EAI_NONAME: 'no such host',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EHOSTDOWN: 'host down',
  ENETDOWN: 'network down',
  EADDRNOTAVAIL: 'address not available',
};
const isTlsFailure = (code: string): boolean => /^ERR_(SSL|TLS)_|CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME_MISMATCH/.test(code);

/**
 * The connection failed: the service could not be reached (refused, DNS,
 * unreachable, TLS: `connected` false, not retried, nothing spent), or the
 * connection dropped before an answer (`connected` true: the request may
 * have arrived, so it is retried through the limiter like any call).
 */
export class NetworkError extends PowprimeError {
  readonly code = 'ERR_NETWORK';
  override readonly name: string = 'NetworkError';
  override readonly transient: boolean;
  /** The system's code, e.g. ECONNREFUSED, ENOTFOUND, ECONNRESET, CERT_HAS_EXPIRED. */
  readonly errno: string | undefined;
  /** False when the request never left this machine: the service did not see it. */
  readonly connected: boolean;
  constructor(
    readonly route: string,
    cause: unknown,
    /** host:port, named in the message when the service could not be reached. */
    host?: string,
  ) {
    const errno = typeof (cause as { code?: unknown })?.code === 'string' ? (cause as { code: string }).code : undefined;
    const text = (cause as Error)?.message ?? String(cause);
    const refused = errno !== undefined && Object.hasOwn(NOT_CONNECTED, errno);
    const tls = errno !== undefined && !refused && isTlsFailure(errno);
    const where = `cannot reach ${host ?? 'the service'}`;
    super(refused ? `${route}: ${where}: ${NOT_CONNECTED[errno!]} (${errno})` : tls ? `${route}: ${where}: TLS handshake failed (${errno}: ${text})` : `${route}: ${text}`, { cause });
    const unreachable = refused || tls;
    this.errno = errno;
    this.connected = !unreachable;
    this.transient = !unreachable;
  }
}
