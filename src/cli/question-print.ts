/** How question threads read on stdout: for a person (every server string's controls escaped) or, with --json, verbatim. */
import { isoTime } from '../clients/clock.ts';
import { attributionText } from '../clients/question/attribution.ts';
import { threadJson, type ItemError, type Thread, type ThreadItem } from '../clients/question/threads.ts';
import { terminalLine, terminalText } from './terminal-text.ts';

/** A thread for a person: every server string with its controls escaped (--json keeps them verbatim). */
export function printThread(t: Thread | ThreadItem): string {
  const lines = [];
  if ('id' in t) lines.push(`# ${terminalLine(t.id)}`);
  lines.push(`Q: ${terminalText(t.question)}`, `A (${terminalLine(t.answeree)}, ${isoTime(t.time * 1000)}):`, terminalText(t.answer));
  if (t.files?.length) lines.push(`Files: ${t.files.map((f) => `${terminalLine(f.filename)} (${terminalLine(f.mimetype)}, ${f.size} bytes)`).join(', ')}`);
  lines.push(`— ${terminalLine(attributionText(t.attribution))}`);
  return `${lines.join('\n')}\n`;
}

/** Threads (or the service's per-id errors) as one JSON array, or one block each for a person. */
export function printItems(items: (ThreadItem | ItemError)[], json?: boolean): void {
  if (json) return void process.stdout.write(`${JSON.stringify(items.map((i) => ('error' in i ? i : threadJson(i))))}\n`);
  for (const i of items) process.stdout.write('error' in i ? `# ${terminalLine(i.id ?? '?')}: ${terminalLine(i.error)}\n` : `${printThread(i)}\n`);
}
