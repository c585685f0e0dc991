/** The prime registry's `{error, ident}` failures, one class per ident, carrying the server's message. */
import { PowprimeError } from '../../errors.ts';
import { ServiceError } from '../errors.ts';

export class RegistryError extends ServiceError {
  override readonly name: string = 'RegistryError';
  override readonly code: string = 'ERR_REGISTRY';
  constructor(
    route: string,
    status: number,
    message: string | null,
    readonly ident: string | null,
  ) {
    super('registry', route, status, message);
  }
}
/** The one-time code was refused (a clock off by more than a step, or a reused code). */
export class TotpError extends RegistryError {
  override readonly name: string = 'TotpError';
  override readonly code = 'ERR_REGISTRY_TOTP';
}
export class JsonError extends RegistryError {
  override readonly name: string = 'JsonError';
  override readonly code = 'ERR_REGISTRY_JSON';
}
export class RegisteredError extends RegistryError {
  override readonly name: string = 'RegisteredError';
  override readonly code = 'ERR_REGISTRY_REGISTERED';
}
export class NotPrimeError extends RegistryError {
  override readonly name: string = 'NotPrimeError';
  override readonly code = 'ERR_REGISTRY_NOT_PRIME';
}
export class RequirementsError extends RegistryError {
  override readonly name: string = 'RequirementsError';
  override readonly code = 'ERR_REGISTRY_REQUIREMENTS';
}
export class NotExistError extends RegistryError {
  override readonly name: string = 'NotExistError';
  override readonly code = 'ERR_REGISTRY_NOT_EXIST';
}

const BY_IDENT: Record<string, typeof RegistryError> = {
  totp: TotpError,
  json: JsonError,
  registered: RegisteredError,
  notprime: NotPrimeError,
  requirements: RequirementsError,
  notexist: NotExistError,
};

/** Whether `ident` is one the spec names (and so a typed answer of the registry, at whatever status). */
export function knownIdent(ident: string | null): boolean {
  return ident !== null && Object.hasOwn(BY_IDENT, ident);
}

export function registryError(route: string, status: number, message: string | null, ident: string | null): RegistryError {
  const Cls = (ident && Object.hasOwn(BY_IDENT, ident) && BY_IDENT[ident]) || RegistryError;
  return new Cls(route, status, message, ident);
}

/** A prime that failed the local safe-prime check: never sent to the registry. */
export class NotSafePrimeError extends PowprimeError {
  readonly code = 'ERR_NOT_SAFE_PRIME';
  override readonly name: string = 'NotSafePrimeError';
  constructor(readonly prime: bigint) {
    super(`${prime} is not a safe prime (checked locally); it was not sent`);
  }
}
