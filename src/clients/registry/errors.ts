/** The prime registry's `{error, ident}` failures, one class per ident, carrying the server's message. */
import { ServiceError } from '../errors.ts';

export class RegistryError extends ServiceError {
  override name = 'RegistryError';
  constructor(
    route: string,
    status: number,
    message: string | null,
    readonly ident: string | null,
  ) {
    super('registry', route, status, message);
  }
}
export class TotpError extends RegistryError {
  override name = 'TotpError';
}
export class JsonError extends RegistryError {
  override name = 'JsonError';
}
export class RegisteredError extends RegistryError {
  override name = 'RegisteredError';
}
export class NotPrimeError extends RegistryError {
  override name = 'NotPrimeError';
}
export class RequirementsError extends RegistryError {
  override name = 'RequirementsError';
}
export class NotExistError extends RegistryError {
  override name = 'NotExistError';
}

const BY_IDENT: Record<string, typeof RegistryError> = {
  totp: TotpError,
  json: JsonError,
  registered: RegisteredError,
  notprime: NotPrimeError,
  requirements: RequirementsError,
  notexist: NotExistError,
};

export function registryError(route: string, status: number, message: string | null, ident: string | null): RegistryError {
  const Cls = (ident && BY_IDENT[ident]) || RegistryError;
  return new Cls(route, status, message, ident);
}

/** A prime that failed the local safe-prime check: never sent to the registry. */
export class NotSafePrimeError extends Error {
  override name = 'NotSafePrimeError';
  constructor(readonly prime: bigint) {
    super(`${prime} is not a safe prime (checked locally); it was not sent`);
  }
}
