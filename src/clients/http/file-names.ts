import { createHash } from 'node:crypto';

/** Longest stored name in UTF-8 bytes (file systems allow 255; room is left for a suffix). */
const MAX_BYTES = 200;

/**
 * A file name from the server made safe to store: no folders, no dot files,
 * no control or reserved characters, at most 200 bytes. A name that had to
 * change gets a hash of the original before its extension, so two names that
 * clean up alike ("x?y" and "x_y") never land on the same file.
 */
export function sanitizeFilename(name: string): string {
  if (typeof name !== 'string') throw new TypeError(`name must be a string (got ${typeof name})`);
  const base = name.split(/[/\\]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are among those replaced on purpose
  const clean = base.replace(/[\x00-\x1f\x7f<>:"|?*~]/g, '_').replace(/^\.+/, '_') || '_';
  if (clean === name && Buffer.byteLength(clean) <= MAX_BYTES) return clean;
  const tag = `~${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
  const dot = clean.lastIndexOf('.');
  const ext = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : '';
  // Whole code points only, so the cut never leaves half a character.
  const stem = Array.from(clean.slice(0, clean.length - ext.length));
  while (stem.length && Buffer.byteLength(stem.join('') + tag + ext) > MAX_BYTES) stem.pop();
  return stem.join('') + tag + ext;
}
