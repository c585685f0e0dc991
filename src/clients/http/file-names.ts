/** A file name from the server made safe to store: no folders, no dot files, no control characters. */
export function sanitizeFilename(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const clean = base.replace(/[\x00-\x1f\x7f<>:"|?*]/g, '_').replace(/^\.+/, '_').slice(0, 200);
  return clean === '' ? '_' : clean;
}
