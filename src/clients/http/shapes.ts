/** Checks that a service response has the documented shape; else a ProtocolError. */
import { ProtocolError } from '../errors.ts';

type Kind = 'string' | 'number' | 'integer' | 'boolean';

/** A short, non-recursive description of a value for an error (a hostile body may nest thousands deep). */
function preview(v: unknown): string {
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (v !== null && typeof v === 'object') return `an object with keys ${Object.keys(v).slice(0, 5).join(', ') || '(none)'}`;
  return typeof v === 'string' ? JSON.stringify(v.slice(0, 80)) : String(v);
}

function isKind(v: unknown, k: Kind): boolean {
  return k === 'integer' ? Number.isInteger(v) : typeof v === k;
}

/** Fields that must be present, and optional ones that must have their type when present. */
export function checkObject(route: string, v: unknown, required: Record<string, Kind>, optional: Record<string, Kind> = {}): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ProtocolError(route, `expected an object, got ${preview(v)}`);
  const o = v as Record<string, unknown>;
  for (const [k, kind] of Object.entries(required)) {
    if (!isKind(o[k], kind)) throw new ProtocolError(route, `field '${k}' should be ${kind === 'integer' ? 'an integer' : `a ${kind}`}`);
  }
  for (const [k, kind] of Object.entries(optional)) {
    if (o[k] !== undefined && !isKind(o[k], kind)) throw new ProtocolError(route, `field '${k}' should be ${kind === 'integer' ? 'an integer' : `a ${kind}`}`);
  }
  return o;
}

export function checkArray(route: string, v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new ProtocolError(route, `expected an array, got ${preview(v)}`);
  return v;
}

/**
 * A value placed in a URL path segment. "." and ".." are refused: the URL
 * parser would resolve them and the request would reach another route.
 */
export function pathSegment(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
  if (value === '.' || value === '..') throw new RangeError(`${name} cannot be "${value}": it would name another route`);
  return encodeURIComponent(value);
}
