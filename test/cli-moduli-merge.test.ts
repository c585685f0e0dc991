// `powprime moduli --shard` and `powprime merge` of moduli files, as an admin
// spreading a run over machines uses them: shards merged are the straight
// run, a merge with gaps says so and a later merge fills them, the merged
// file resumes; conflicting, mixed and garbled inputs are refused by line.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasNative } from './helpers/backends.ts';
import { runCliSync as cli } from './helpers/cli.ts';
import { jsonValues } from './helpers/json-convention.ts';
import { timeless, timelessLines } from './helpers/moduli.ts';
import { tempDir } from './helpers/tmp.ts';

const firstLine = (file: string): string => readFileSync(file, 'utf8').split('\n')[0]!;

describe.runIf(hasNative)('moduli shards and merge', () => {
  it('two shards merged are the straight run; a gap is named and filled by a later merge; the merged file resumes', () => {
    const dir = tempDir('powprime-moduli-merge-');
    const [s1, s2, merged] = ['s1', 's2', 'merged'].map((f) => path.join(dir, f)) as [string, string, string];
    const one = cli('moduli', '--bits', '2048', '--count', '3', '--seed', '21', '--shard', '1/2', '--out', s1);
    expect(one.status, one.stderr).toBe(0);
    expect(one.stdout).toBe(`2 new moduli; 2 in ${s1} (seed 21)\n`);
    expect(firstLine(s1)).toMatch(/^# powprime moduli: seed 21 stream 2 shard 1\/2 /);
    // The second shard with JSON progress: the search's expectation of the tests left, counting down to the end.
    const two = cli('--progress', 'json', 'moduli', '--bits', '2048', '--count', '3', '--seed', '21', '--shard', '2/2', '--out', s2);
    expect(two.status, two.stderr).toBe(0);
    const ticks = jsonValues(two.stderr) as { done: number; total: number; testsRun: number; expectedTestsLeft: number; testsPerSecond: number | null }[];
    expect(ticks.length).toBeGreaterThan(0);
    expect(ticks[0]).toMatchObject({ bits: 2048, done: 0, total: 1 });
    // About 1,000 Fermat tests a 2048-bit safe prime at the sieve's depth (bench/prime.ts measures it).
    expect(ticks[0]!.expectedTestsLeft).toBeGreaterThan(300);
    expect(ticks[0]!.expectedTestsLeft).toBeLessThan(3000);
    expect(ticks.at(-1)).toMatchObject({ done: 1, total: 1, expectedTestsLeft: 0 });
    // The tests run only rise, and the group took some.
    expect(ticks.map((t) => t.testsRun)).toEqual(ticks.map((t) => t.testsRun).sort((a, b) => a - b));
    expect(ticks.at(-1)!.testsRun).toBeGreaterThan(0);

    const straight = cli('moduli', '--bits', '2048', '--count', '3', '--seed', '21');
    expect(straight.status, straight.stderr).toBe(0);
    // Shard 1 alone: indexes 0 and 2, listed in the header, the gap named.
    const gappy = cli('merge', s1, '--out', merged);
    expect(gappy.status, gappy.stderr).toBe(0);
    expect(gappy.stderr).toBe('powprime: warning: the 2048-bit moduli of seed 21 lack index 1 (a shard not merged, or not finished)\n');
    expect(firstLine(merged)).toMatch(/^# powprime moduli: seed 21 stream 2 indexes 2048:0,2 /);
    expect(timeless(merged)).toEqual([0, 2].map((i) => timelessLines(straight.stdout)[i]));
    // Into the shard's own file, with gaps: refused, the file left as it was (it would no longer resume as the shard).
    const before = readFileSync(s1, 'utf8');
    expect(cli('merge', s1, '--out', s1)).toMatchObject({
      status: 2,
      stderr: `powprime: --out ${s1} is shard 1/2's file (seed 21), which \`moduli --shard 1/2\` resumes; merged with gaps it would resume as no shard: write the merge to another file\n`,
    });
    expect(readFileSync(s1, 'utf8')).toBe(before);
    // The same when the shard's file is not an input but a copy of it is: its lines are all kept, its header would not be.
    const copy = path.join(path.dirname(s1), 's1-copy');
    writeFileSync(copy, before);
    expect(cli('merge', copy, '--out', s1)).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/^powprime: --out \S+ is shard 1\/2's file \(seed 21\), .* merged with gaps it would resume as no shard/),
    });
    expect(readFileSync(s1, 'utf8')).toBe(before);
    // A shard of one group (index 0, no gap) merged alone: the same loss, said so.
    const first = path.join(path.dirname(s1), 'first');
    writeFileSync(first, `${before.split('\n').slice(0, 2).join('\n')}\n`);
    expect(cli('merge', first, '--out', first)).toMatchObject({
      status: 2,
      stderr: `powprime: --out ${first} is shard 1/2's file (seed 21), which \`moduli --shard 1/2\` resumes; merged alone it would resume as no shard: write the merge to another file\n`,
    });
    const resumeGappy = cli('moduli', '--bits', '2048', '--count', '3', '--out', merged);
    expect(resumeGappy).toMatchObject({ status: 2, stderr: `powprime: --out file ${merged} is a merge with gaps; merge the missing shards into it, or use another file\n` });
    // The other shard merged into it (--out one of the inputs), twice over: the straight run, deduplicated.
    const whole = cli('merge', merged, s2, s1, '--out', merged, '--json');
    expect(whole.status, whole.stderr).toBe(0);
    expect(JSON.parse(whole.stdout)).toEqual({ out: merged, files: 3, lines: 5, moduli: 3, duplicates: 2 });
    expect(firstLine(merged)).toMatch(/^# powprime moduli: seed 21 stream 2 \(/);
    expect(timeless(merged)).toEqual(timelessLines(straight.stdout));
    // Another seed's run is another section of the merged file, under its own header.
    const other = path.join(dir, 'other');
    expect(cli('moduli', '--bits', '2048', '--count', '1', '--seed', '22', '--out', other).status).toBe(0);
    const sections = cli('merge', merged, other);
    expect(sections.status, sections.stderr).toBe(0);
    expect(sections.stdout.split('\n').filter((l) => l.startsWith('#'))).toEqual([
      expect.stringMatching(/^# powprime moduli: seed 21 stream 2 \(/),
      expect.stringMatching(/^# powprime moduli: seed 22 stream 2 \(/),
    ]);
    expect(timelessLines(sections.stdout)).toEqual([...timeless(merged), ...timeless(other)]);
    // Whole, so the same command without --shard resumes it (here with nothing left to do).
    expect(cli('moduli', '--bits', '2048', '--count', '3', '--out', merged).stdout).toBe(`0 new moduli; 3 in ${merged} (seed 21)\n`);
    // A shard's file resumes only as that shard.
    const asOther = cli('moduli', '--bits', '2048', '--count', '3', '--seed', '21', '--shard', '2/2', '--out', s1);
    expect(asOther).toMatchObject({ status: 2, stderr: `powprime: --out file ${s1} holds shard 1/2, and this run is shard 2/2; use another file\n` });
    expect(cli('moduli', '--bits', '2048', '--count', '3', '--shard', '1/2')).toMatchObject({ status: 2, stderr: 'powprime: --shard needs --seed: every shard must search the same run\n' });
  });

  it('refuses conflicting, foreign, mixed and garbled inputs, naming the file and line; nothing to merge is exit 1', () => {
    const dir = tempDir('powprime-moduli-merge-');
    // Real groups from OpenSSH's own file (safe primes with ssh-keygen's generator), put under headers of ours.
    const sample = readFileSync(new URL('./vectors/openssh-moduli-sample.txt', import.meta.url), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('2'));
    const file = (name: string, ...lines: string[]): string => {
      const f = path.join(dir, name);
      writeFileSync(f, lines.map((l) => `${l}\n`).join(''));
      return f;
    };
    const header = '# powprime moduli: seed 5 stream 2';
    const a = file('a', header, sample[0]!, sample[1]!);
    const b = file('b', header, sample[1]!);
    const conflict = cli('merge', a, b);
    expect(conflict).toMatchObject({ status: 2, stderr: `powprime: conflicting moduli for index 0 of the 2048-bit run with seed 5: ${a} line 2 and ${b} line 2 differ\n` });
    // --out a file that is not an input, holding a group the merge would not keep: refused at once, before a's
    // groups are verified (they would fail below), and left as it was.
    const foreign = file('foreign', sample[2]!);
    const lost = `powprime: --out ${foreign} holds 1 line the merge would not keep (it is not one of the inputs): give it as an input too, write elsewhere, or remove it first\n`;
    expect(cli('merge', a, '--out', foreign)).toMatchObject({ status: 2, stderr: lost });
    expect(readFileSync(foreign, 'utf8')).toBe(`${sample[2]}\n`);
    // A safe prime with a generator, but not the one index 0 of seed 5 finds: a line from another file or run.
    expect(cli('merge', a)).toMatchObject({ status: 2, stderr: `powprime: ${a} line 2: not group 0 of the 2048-bit run with seed 5 (a line moved, or from another file or run)\n` });
    // A comment of the admin's above the header is still a moduli file (the refusal is the line's, not "not JSON").
    const noted = file('noted', '# regenerated for host foo', header, sample[0]!);
    expect(cli('merge', noted).stderr).toMatch(/line 3: not group 0 of the 2048-bit run with seed 5/);
    // OpenSSH's own file: moduli, but no run to key them by.
    const system = file('system', '# Time Type Tests Tries Size Generator Modulus', sample[0]!);
    expect(cli('merge', system)).toMatchObject({
      status: 2,
      stderr: `powprime: ${system} holds moduli before any powprime header line (line 2), so their seed is unknown (to add groups to such a file, write them to a new one and append its lines: docs/moduli.md)\n`,
    });
    const jsonl = file('x.jsonl', '{"prime":"23","bits":5,"seed":"1","index":0,"elapsedMs":0}');
    expect(cli('merge', a, jsonl)).toMatchObject({ status: 2, stderr: `powprime: ${a} is a moduli file and ${jsonl} is not: merge moduli files with moduli files, search files with search files\n` });
    // Every clause whole or the header refused: never a clause skipped and the section taken for a whole run.
    const garbled: [string, RegExp][] = [
      ['# powprime moduli: seed five', /line 1 is not a powprime moduli header line$/],
      ['# powprime moduli: seed 5 stream 2 shard 2/2x', /line 1 is not a powprime moduli header line$/],
      ['# powprime moduli: seed 5 stream 2 shard 1/0', /line 1 names shard 1\/0, which does not exist/],
      ['# powprime moduli: seed 5 stream 2 shard 1/2 indexes 2048:9', /line 1 names both a shard and a list of indexes$/],
      ['# powprime moduli: seed 5 stream 2 indexes 2048:7;3072', /line 1 lists indexes that are not increasing ranges by size \(3072\)$/],
      ['# powprime moduli: seed 5 stream 2 indexes 2048:0-32049:5', /line 1 lists indexes that are not increasing ranges by size \(2048:0-32049:5\)$/],
      ['# powprime moduli: seed 5 stream 2 indexes 2048:5-3', /line 1 lists indexes that are not increasing ranges by size/],
    ];
    garbled.forEach(([line, message], i) => {
      const g = file(`g${i}`, line, sample[0]!);
      const r = cli('merge', g);
      expect(r.status, line).toBe(2);
      expect(r.stderr.trimEnd(), line).toMatch(new RegExp(`^powprime: ${g} ${message.source}`));
    });
    // A short header naming trillions of indexes is ranges, not a list: read at once, its line judged as any other.
    const huge = file('huge', `${header} indexes 2048:0;1:0-999999999999;2:0-999999999999`, sample[0]!);
    expect(cli('merge', huge).stderr).toMatch(/line 2: not group 0 of the 2048-bit run with seed 5/);
    const short = file('s', '# powprime moduli: seed 5 stream 2 indexes 2048:4', sample[0]!, sample[1]!);
    expect(cli('merge', short)).toMatchObject({ status: 2, stderr: `powprime: ${short} line 3 is 2048-bit modulus number 2 of its section, and its header lists 1\n` });
    const empty = file('empty', header);
    expect(cli('merge', empty, '--out', path.join(dir, 'never'))).toMatchObject({ status: 1, stderr: 'powprime: no moduli in 1 file; nothing written\n' });
    // Nothing to merge replaces nothing, so it loses nothing: "found nothing", not a refusal of --out.
    expect(cli('merge', empty, '--out', foreign)).toMatchObject({ status: 1, stderr: 'powprime: no moduli in 1 file; nothing written\n' });
    expect(readFileSync(foreign, 'utf8')).toBe(`${sample[2]}\n`);
  });

  it('names a missing input, a folder, a Windows copy, and --json without --out; an empty input goes with either kind', () => {
    const dir = tempDir('powprime-moduli-merge-');
    const made = path.join(dir, 'made');
    expect(cli('moduli', '--bits', '2048', '--count', '1', '--seed', '3', '--out', made).status).toBe(0);
    const missing = path.join(dir, 'nosuch');
    expect(cli('merge', made, missing)).toMatchObject({ status: 2, stderr: `powprime: ${missing}: no such file\n` });
    expect(cli('merge', made, dir)).toMatchObject({ status: 2, stderr: `powprime: ${dir} is a directory; give a file\n` });
    const crlf = path.join(dir, 'crlf');
    writeFileSync(crlf, readFileSync(made, 'utf8').replaceAll('\n', '\r\n'));
    expect(cli('merge', crlf)).toMatchObject({ status: 2, stderr: `powprime: ${crlf} line 1 ends in CR (a Windows line ending): convert the file back (dos2unix) first\n` });
    expect(cli('merge', made, '--json')).toMatchObject({ status: 2, stderr: 'powprime: --json goes with --out: without it the merged lines are the output\n' });
    // An empty file (a shard that found nothing yet, say) is neither kind: merged with the moduli file, not refused as "not one".
    const empty = path.join(dir, 'empty');
    writeFileSync(empty, '');
    const r = cli('merge', made, empty);
    expect(r.status, r.stderr).toBe(0);
    expect(timelessLines(r.stdout)).toEqual(timeless(made));
  });
});
