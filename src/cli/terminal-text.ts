/**
 * Text from a server (answers, file names, model links, ads, the service's
 * error messages) printed for a person: control characters and bidi controls
 * are shown as visible escapes (`\x1b`, `\u202e`), so a server cannot clear
 * the screen, retitle the window, hide text or reorder what is read. --json
 * output and the files powprime writes keep the text verbatim.
 */

/**
 * C0 controls, DEL and C1 controls; the Arabic letter mark, LRM/RLM, the bidi
 * embeddings and overrides (U+202A–202E) and isolates (U+2066–2069).
 */
// Written as \u escapes on purpose: matching control characters is this module's job.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this module's job
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above
const UNSAFE_KEEP_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of server text (a name, a link, a message): every control escaped, line breaks included. */
export function terminalLine(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** Server text of several lines (an answer): line feeds and tabs kept, every other control escaped. */
export function terminalText(text: string): string {
  return text.replace(UNSAFE_KEEP_LINES, escapeChar);
}
