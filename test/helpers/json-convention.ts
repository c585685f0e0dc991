/**
 * The JSON convention of docs/cli.md ("JSON output"), checked on a parsed value:
 * camelCase keys; times in milliseconds (`…Ms`) as integers; instants
 * (`…At`, and the services' `time`, `timestamp`, `at`) as ISO 8601 strings,
 * never UNIX numbers; integers only where exact (beyond 2^53 they are strings).
 * Returns what deviates, with the path of each value.
 */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const CAMEL = /^[a-z][a-zA-Z0-9]*$/;
const INSTANT_KEYS = new Set(['time', 'timestamp', 'at', 'seen', 'claimed']);
// A number in the range of UNIX seconds or milliseconds of 2001–2286 looks like an epoch instant.
const looksLikeEpoch = (n: number): boolean => (n >= 1e9 && n < 1e10) || (n >= 1e12 && n < 1e13);

export function jsonConventionErrors(value: unknown, opts: { mapKeysAt?: readonly string[] } = {}): string[] {
  const errors: string[] = [];
  const walk = (v: unknown, at: string, key: string | null): void => {
    if (typeof v === 'number') {
      if (key !== null && /Ms$/.test(key) && !Number.isInteger(v)) errors.push(`${at}: milliseconds not an integer (${v})`);
      if (key !== null && (INSTANT_KEYS.has(key) || /At$/.test(key))) errors.push(`${at}: an instant as a number (${v})`);
      else if (looksLikeEpoch(v)) errors.push(`${at}: a number that looks like a UNIX time (${v})`);
      if (Number.isInteger(v) && !Number.isSafeInteger(v)) errors.push(`${at}: an integer beyond 2^53 as a number`);
      return;
    }
    if (typeof v === 'string') {
      if (key !== null && (INSTANT_KEYS.has(key) || /At$/.test(key)) && !ISO.test(v)) errors.push(`${at}: an instant not in ISO 8601 (${v})`);
      return;
    }
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, `${at}[${i}]`, null);
      return;
    }
    if (v && typeof v === 'object') {
      // Objects whose keys are data (a leaderboard's sites) are not held to camelCase.
      const keysAreData = opts.mapKeysAt?.includes(at) ?? false;
      for (const [k, x] of Object.entries(v)) {
        if (!keysAreData && !CAMEL.test(k)) errors.push(`${at}.${k}: key not camelCase`);
        walk(x, `${at}.${k}`, keysAreData ? null : k);
      }
    }
  };
  walk(value, '$', null);
  return errors;
}

/** Every JSON value in a command's stdout (one document, or one per line). */
export function jsonValues(stdout: string): unknown[] {
  const text = stdout.trim();
  try {
    return [JSON.parse(text)];
  } catch {
    return text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as unknown);
  }
}
