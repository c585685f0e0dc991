// Server text that reaches a terminal: a hostile server's answer, file names,
// model links and ads carry ESC[2J (clear screen), an OSC title sequence, NUL,
// C1 controls and bidi overrides. Printed for a person they appear as visible
// escapes; --json keeps them verbatim (JSON's own escaping, parsed back equal).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalLine, terminalText } from '../src/cli/terminal-text.ts';
import { b85encode } from '../src/clients/registry/base85.ts';
import { runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

const HOSTILE = 'A\x1b[2J\x1b]0;owned\x07B\x00C\x9bD\u202eE\u2066F\rG';
/** Any control or bidi character left raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the check
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('terminalLine / terminalText', () => {
  it('escape C0, DEL, C1 and bidi controls visibly; keep printable text, including non-Latin', () => {
    expect(terminalLine(HOSTILE)).toBe('A\\x1b[2J\\x1b]0;owned\\x07B\\x00C\\x9bD\\u202eE\\u2066F\\x0dG');
    expect(terminalLine('a\nb\tc\x7f')).toBe('a\\x0ab\\x09c\\x7f');
    expect(terminalText('line one\n\tline two\x1b[31m')).toBe('line one\n\tline two\\x1b[31m');
    for (const c of ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u2067', '\u2068', '\u2069']) {
      expect(terminalLine(`x${c}y`)).toBe(`x\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}y`);
    }
    expect(terminalLine('素数 — Primzahl ✓ €')).toBe('素数 — Primzahl ✓ €');
  });
});

let server: Server;
let url = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const json = (v: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
    if (req.url === '/gpt/api/models') return json([`https://model.example/${HOSTILE}`]);
    if (req.url?.startsWith('/gpt/api/answer/')) {
      return json({
        question: `Q ${HOSTILE}`,
        answer: `line 1\nline 2 ${HOSTILE}`,
        answeree: `person ${HOSTILE}`,
        time: 1_700_000_000,
        files: [{ filename: `f${HOSTILE}.txt`, mimetype: 'text/plain', size: 3 }],
      });
    }
    if (req.url === '/gpt/api/files') return json([{ filename: `f${HOSTILE}.txt`, mimetype: 'text/plain', size: 3, question: 'q1' }]);
    if (req.url === '/api/random') return json({ alt: `ad ${HOSTILE}`, author: 'x', bias: 1, contact: 'c', filename: 'a.png', license: 'CC0', timestamp: 1, to: `https://to.example/${HOSTILE}` });
    if (req.url === '/api/totp') return json({ key: b85encode(new Uint8Array(16)), ts: 0 });
    // A registry record with a hostile note and a registration time no date can hold.
    if (req.url?.startsWith('/api/prime/')) return json({ bits: 5, trans: 1, claimed: 1e15, note: `note ${HOSTILE}` });
    if (req.url === '/gpt/api/stats') return void res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `broken ${HOSTILE}` }));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const flags = (): string[] => ['--base-url', url, '--state-dir', tempDir('powprime-tt-'), '--no-limits'];

describe('commands that print server text', () => {
  it('question answer: escaped for a person, the answer keeps its line breaks; --json verbatim', async () => {
    const human = await runCli('question', 'answer', 'q1', ...flags());
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).not.toMatch(RAW);
    expect(human.stdout).toContain('line 1\nline 2 A\\x1b[2J\\x1b]0;owned\\x07B\\x00C\\x9bD\\u202eE\\u2066F\\x0dG');
    expect(human.stdout).toContain('person A\\x1b[2J');
    expect(human.stdout).toContain('fA\\x1b[2J');
    expect(human.stdout).toContain('https://model.example/A\\x1b[2J');
    const json = await runCli('question', 'answer', 'q1', '--json', ...flags());
    const t = JSON.parse(json.stdout) as { answer: string; answeree: string; files: { filename: string }[]; attribution: { models: string[] } };
    expect(t.answer).toBe(`line 1\nline 2 ${HOSTILE}`);
    expect(t.files[0]!.filename).toBe(`f${HOSTILE}.txt`);
    expect(t.attribution.models).toEqual([`https://model.example/${HOSTILE}`]);
  });

  it('question models and files, ads random: no raw control reaches stdout', async () => {
    for (const args of [
      ['question', 'models'],
      ['question', 'files'],
      ['ads', 'random'],
    ]) {
      const r = await runCli(...args, ...flags());
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(RAW);
      expect(r.stdout).toContain('A\\x1b[2J');
    }
  });

  it('registry get: the note escaped, an impossible time said as such rather than "Invalid time value"', async () => {
    const r = await runCli('registry', 'get', '23', ...flags());
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('\\u001b[2J');
    expect(r.stdout).toContain('registered (no valid time: 1000000000000000000)');
  });

  it("an error carrying the service's message: one escaped line", async () => {
    const r = await runCli('question', 'stats', ...flags());
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^powprime: question GET \/gpt\/api\/stats: HTTP 500: broken A\\x1b\[2J.*\\x0dG$/m);
  });
});
