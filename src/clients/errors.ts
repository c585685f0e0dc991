/**
 * Typed errors of the service clients, on the package's one error model
 * (PowprimeError: a stable `code`, and `transient` for the retry logic).
 * Each carries what the service said, when it said anything.
 */
import { PowprimeError } from '../errors.ts';

/** The service answered with an error status. `serviceMessage` is its `{error}` text, if any. */
export class ServiceError extends PowprimeError {
  override readonly name: string = 'ServiceError';
  readonly code: string = 'ERR_SERVICE';
  constructor(
    readonly service: string,
    readonly route: string,
    readonly status: number,
    readonly serviceMessage: string | null,
  ) {
    super(`${service} ${route}: HTTP ${status}${serviceMessage ? `: ${serviceMessage}` : ''}`);
  }
}

/** 400: a field or the session cookie was missing. */
export class BadRequestError extends ServiceError {
  override readonly name: string = 'BadRequestError';
  override readonly code = 'ERR_BAD_REQUEST';
}
/** 401: the proof-of-work solution was refused. */
export class UnauthorizedError extends ServiceError {
  override readonly name: string = 'UnauthorizedError';
  override readonly code = 'ERR_UNAUTHORIZED';
}
/** 404 on routes where it is not a normal answer. */
export class ServiceNotFoundError extends ServiceError {
  override readonly name: string = 'ServiceNotFoundError';
  override readonly code = 'ERR_SERVICE_NOT_FOUND';
}
/** 5xx: the service failed; the same call may work later. */
export class ServerError extends ServiceError {
  override readonly name: string = 'ServerError';
  override readonly code = 'ERR_SERVER';
  override readonly transient = true;
}
/** 429: rate limited. The host is then treated as banned until `retryAt` (ms since the epoch). */
export class RateLimitedError extends ServiceError {
  override readonly name: string = 'RateLimitedError';
  override readonly code = 'ERR_RATE_LIMITED';
  override readonly transient = true;
  constructor(
    service: string,
    route: string,
    serviceMessage: string | null,
    readonly retryAt: number,
  ) {
    super(service, route, 429, serviceMessage);
  }
}

/** The response could not be understood: not JSON, truncated, or not of the documented shape. */
export class ProtocolError extends PowprimeError {
  override readonly name: string = 'ProtocolError';
  readonly code: string = 'ERR_PROTOCOL';
  // A truncated or garbled body is usually the connection's fault: worth another try.
  override readonly transient: boolean = true;
  constructor(
    readonly route: string,
    readonly detail: string,
    readonly status?: number,
  ) {
    super(`${route}: ${detail}`);
  }
}

/**
 * The response was larger than the client accepts (`limit` bytes). Not the
 * connection's fault: the same call would fetch the same body again, so it is
 * thrown at once, never retried. Read only up to the limit, then dropped.
 */
export class ResponseTooLargeError extends ProtocolError {
  override readonly name: string = 'ResponseTooLargeError';
  override readonly code = 'ERR_RESPONSE_TOO_LARGE';
  override readonly transient = false;
  constructor(
    route: string,
    /** The most bytes accepted. */
    readonly limit: number,
    status?: number,
  ) {
    super(route, `response larger than ${limit} bytes`, status);
  }
}

/** No response within the timeout. (Not DOMException's TimeoutError, which an AbortSignal.timeout throws.) */
export class RequestTimeoutError extends PowprimeError {
  readonly code = 'ERR_REQUEST_TIMEOUT';
  override readonly name: string = 'RequestTimeoutError';
  override readonly transient = true;
  constructor(
    readonly route: string,
    readonly timeoutMs: number,
  ) {
    super(`${route}: no response within ${timeoutMs} ms`);
  }
}

/**
 * A whole operation's deadline passed before it ended (the CLI's
 * `--timeout`): the waits, backoffs and reads under it were stopped. `what`
 * names whose answer was awaited (e.g. the service's host).
 */
export class DeadlineError extends PowprimeError {
  readonly code = 'ERR_DEADLINE';
  override readonly name: string = 'DeadlineError';
  constructor(
    /** The deadline, as a time from the start (ms). */
    readonly timeoutMs: number,
    readonly what = '',
    /** How the deadline was set, said after the message (e.g. '--timeout'). */
    readonly source = '',
  ) {
    super(`${what ? `${what}: ` : ''}no answer within ${formatDuration(timeoutMs)}${source ? ` (${source})` : ''}`);
  }
}

/** 30000 as 30s, 300000 as 5m, 7200000 as 2h, 1500 as 1500ms: the units `--timeout` takes. */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms > 0 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** A call would have to wait for the rate limit (or a ban) longer than allowed. */
export class RateLimitWaitError extends PowprimeError {
  readonly code = 'ERR_RATE_LIMIT_WAIT';
  override readonly name: string = 'RateLimitWaitError';
  constructor(
    readonly route: string,
    /** When the call may go out (ms since the epoch). */
    readonly retryAt: number,
    reason: string,
  ) {
    super(`${route} would have to wait: ${reason}`);
  }
}

/** Every proof-of-work challenge expired before its solution was ready, so nothing was sent. */
export class ChallengeExpiredError extends PowprimeError {
  readonly code = 'ERR_CHALLENGE_EXPIRED';
  override readonly name: string = 'ChallengeExpiredError';
  override readonly transient = true;
  constructor(readonly route: string) {
    super(`${route}: every challenge expired before its solution was ready`);
  }
}

/**
 * A state file that must not be rebuilt (the registry keystore) is not valid
 * JSON or not of the expected shape (`problem` says what is wrong); nothing
 * was changed.
 */
export class StateFileCorruptError extends PowprimeError {
  readonly code = 'ERR_STATE_CORRUPT';
  override readonly name: string = 'StateFileCorruptError';
  constructor(
    readonly file: string,
    cause?: unknown,
    readonly problem = 'is not valid JSON',
  ) {
    super(`${file} ${problem}; it holds keys, so powprime will not replace it: restore it from a backup or repair it`, { cause });
  }
}
