// The documentation a newcomer reads: every relative link of the README, the
// top-level guides and docs/*.md names a file that exists and, after '#', a
// heading of that file; every page of docs/ is reachable from the README; and
// the README stays short enough to read in a few minutes.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

const pages = [
  'README.md',
  'ARCHITECTURE.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  'SECURITY.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of withoutFences.matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const text = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Relative links of a page as [target file relative to the root, anchor or ''], external ones left out. */
function links(page: string, markdown = readFileSync(join(root, page), 'utf8')): { target: string; anchor: string; raw: string }[] {
  const text = prose(markdown);
  const out: { target: string; anchor: string; raw: string }[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    const raw = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) continue; // https:, mailto: …
    const [path, anchor = ''] = raw.split('#') as [string, string?];
    const target = path === '' ? page : relative(root, join(root, dirname(page), path));
    out.push({ target, anchor, raw });
  }
  return out;
}

describe('the documentation', () => {
  it('has the pages the README promises', () => {
    for (const p of ['docs/api.md', 'docs/cli.md', 'docs/operations.md', 'docs/benchmarks.md', 'docs/sanitizers.md', 'docs/errors.md', 'docs/install.md', 'docs/cli-options.md']) {
      expect(pages, p).toContain(p);
    }
  });

  it.each(pages)('every relative link in %s resolves to a file and a heading', (page) => {
    // A page without links still has its title (and so asserts something).
    expect(readFileSync(join(root, page), 'utf8'), `${page} has no title`).toMatch(/^# \S/m);
    const found = links(page);
    for (const { target, anchor, raw } of found) {
      const where = `${page}: (${raw})`;
      expect(target.startsWith('..'), `${where} leaves the repository`).toBe(false);
      expect(existsSync(join(root, target)), `${where}: no ${target}`).toBe(true);
      if (anchor) {
        expect(statSync(join(root, target)).isFile() && target.endsWith('.md'), `${where}: an anchor into a non-Markdown file`).toBe(true);
        expect([...anchors(readFileSync(join(root, target), 'utf8'))], `${where}: no heading #${anchor} in ${target}`).toContain(anchor);
      }
    }
  });

  it('links at least once from the README to every page of docs/', () => {
    const fromReadme = new Set(links('README.md').map((l) => l.target));
    expect(fromReadme.size).toBeGreaterThanOrEqual(10);
    for (const p of pages.filter((x) => x.startsWith('docs/'))) expect(fromReadme, p).toContain(p);
  });

  it('keeps the README short: what, install, quick start, links, platforms', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(180);
    // The first thing a newcomer sees is the two commands to run in a clone.
    expect(readme).toMatch(/^# powprime\n\n```sh\nnpm install && npx powprime bench --quick .*\nnpm test .*\n```\n/);
  });

  // The checker itself must be able to fail: a broken file and a broken anchor are caught.
  it('catches a missing file and a missing heading', () => {
    expect(anchors('# A b\n## `--out` files, locks\n## A b\n')).toEqual(new Set(['a-b', '--out-files-locks', 'a-b-1']));
    const found = links('docs/cli.md', 'see [x](missing.md#a), [y](../README.md), [z](#here), [w](https://example.org/) and `[v](b.md)`\n```\n[u](c.md)\n```\n');
    expect(found.map((l) => [l.target, l.anchor])).toEqual([
      ['docs/missing.md', 'a'],
      ['README.md', ''],
      ['docs/cli.md', 'here'],
    ]);
    expect(existsSync(join(root, found[0]!.target))).toBe(false);
  });
});
