// `powprime fake-services` as a newcomer meets it: the banner says how to
// reach the stand-ins quickly and which answers carry a file, and the advice
// works — an answer (with its file) within seconds, not the spec's minutes.
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';
import { killAll, startCli } from './helpers/processes.ts';
import { tempDir } from './helpers/tmp.ts';

afterAll(killAll);

/** Starts `fake-services` with `args` and returns its banner once the address line is out. */
async function start(...args: string[]): Promise<{ banner: string; url: string }> {
  const p = startCli(['fake-services', ...args]);
  await p.waitFor((out) => out.includes('powprime question ask') || out.includes('--no-limits too\n'), 'the banner');
  const banner = p.stdout();
  return { banner, url: /on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]! };
}

describe('fake-services', () => {
  it("without options: the spec's limits, said so, with how to get quick trials; answers come after the short default delay", async () => {
    const { banner } = await start();
    expect(banner).toContain("with the spec's rate limits");
    expect(banner).toContain('answers come 5s after a question');
    expect(banner).toContain('an answer carries a file (notes.txt) when its question contains "file"');
    expect(banner).toMatch(/run this with --no-limits, and the clients with --no-limits too/);
  });

  it("--no-limits: the banner names the clients' --no-limits, and its example answers within seconds, with the file", async () => {
    const { banner, url } = await start('--no-limits');
    expect(banner).toContain('no rate limits');
    expect(banner).toContain('give the clients --no-limits');
    const example = /\n\s*(powprime question ask .*)\n/.exec(banner)![1]!;
    expect(example).toBe('powprime question ask --no-limits --wait "a question with a file"');
    const common = ['--base-url', url, '--state-dir', tempDir()];
    // The banner's example, as given: the answer and its file arrive well within the test's time (the spec's 10 minutes would not).
    const waited = await runCli('question', 'ask', '--no-limits', '--wait', 'a question with a file', '--json', ...common);
    expect(waited.status, waited.stderr).toBe(0);
    const thread = JSON.parse(waited.stdout) as { question: string; files: { filename: string }[] };
    expect(thread.question).toBe('a question with a file');
    expect(thread.files.map((f) => f.filename)).toEqual(['notes.txt']);
  }, 45_000);

  it("--answer-delay still gives the spec's pace", async () => {
    const { banner } = await start('--no-limits', '--answer-delay', '10m');
    expect(banner).toContain('answers come 10m after a question');
  });
});
