/** Typed errors of the service clients. Each carries what the service said, when it said anything. */

/** The service answered with an error status. `serviceMessage` is its `{error}` text, if any. */
export class ServiceError extends Error {
  override name = 'ServiceError';
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
  override name = 'BadRequestError';
}
/** 401: the proof-of-work solution was refused. */
export class UnauthorizedError extends ServiceError {
  override name = 'UnauthorizedError';
}
/** 404 on routes where it is not a normal answer. */
export class NotFoundError extends ServiceError {
  override name = 'NotFoundError';
}
/** 5xx: the service failed. */
export class ServerError extends ServiceError {
  override name = 'ServerError';
}
/** 429: rate limited. The host is then treated as banned until `retryAt` (ms since the epoch). */
export class RateLimitedError extends ServiceError {
  override name = 'RateLimitedError';
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
export class ProtocolError extends Error {
  override name = 'ProtocolError';
  constructor(
    readonly route: string,
    readonly detail: string,
    readonly status?: number,
  ) {
    super(`${route}: ${detail}`);
  }
}

/** No response within the timeout. */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
  constructor(
    readonly route: string,
    readonly timeoutMs: number,
  ) {
    super(`${route}: no response within ${timeoutMs} ms`);
  }
}

/** The connection failed (refused, reset, DNS…). */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(
    readonly route: string,
    cause: unknown,
  ) {
    super(`${route}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** A call would have to wait for the rate limit (or a ban) longer than allowed. */
export class RateLimitWaitError extends Error {
  override name = 'RateLimitWaitError';
  constructor(
    readonly route: string,
    /** When the call may go out (ms since the epoch). */
    readonly retryAt: number,
    reason: string,
  ) {
    super(`${route}: ${reason}; next slot at ${new Date(retryAt).toISOString()}`);
  }
}
