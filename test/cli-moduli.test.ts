// `powprime moduli` as an admin uses it: files a stock `ssh-keygen -M screen`
// keeps whole, the same moduli from the same seed, resume after a kill -9
// and SIGTERM, refusals of another seed or size, and --screen on OpenSSH's
// own file, a corrupted one and ssh-keygen's candidates.
import { spawnSync } from 'node:child_process';
import { checkPrimeSync, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { hasNative } from './helpers/backends.ts';
import { CLI_ENTRY, runCliSync as cli } from './helpers/cli.ts';
import { openssh, sshKeygen } from './helpers/openssh.ts';
import { timeless, timelessLines } from './helpers/moduli.ts';
import { killAll, startCli } from './helpers/processes.ts';
import { tempDir } from './helpers/tmp.ts';

const tmp = (): string => tempDir('powprime-cli-moduli-');
const groups = (file: string): string[][] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.split(' '));

/** What a stock ssh-keygen keeps of a moduli file (its output lines). */
function screenedBySshKeygen(file: string): string[][] {
  const out = path.join(tmp(), 'ssh-keygen-screened');
  const r = spawnSync(sshKeygen!, ['-M', 'screen', '-f', file, out], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return groups(out);
}

afterEach(killAll);

describe.runIf(hasNative && openssh('powprime moduli', [sshKeygen]))('powprime moduli', () => {
  it('writes moduli a stock ssh-keygen -M screen keeps every one of, at 2048 and 3072 bits', () => {
    const file = path.join(tmp(), 'moduli');
    const r = cli('moduli', '--bits', '2048', '--count', '3', '--seed', '43', '--out', file);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`3 new moduli; 3 in ${file} (seed 43)\n`);
    // A second size in the same file (one 3072-bit modulus: seconds, not minutes).
    const more = cli('moduli', '--bits', '2048,3072', '--count', '1', '--out', file);
    expect(more.status, more.stderr).toBe(0);
    expect(more.stdout).toBe(`1 new modulus; 4 in ${file} (seed 43)\n`);
    const ours = groups(file);
    expect(ours.map((g) => g[4])).toEqual(['2047', '2047', '2047', '3071']);
    for (const g of ours) {
      const p = BigInt(`0x${g[6]}`);
      expect(g.slice(1, 4)).toEqual(['2', '6', g[4] === '2047' ? '5' : '5']);
      expect(p.toString(2).length).toBe(Number(g[4]) + 1);
      // The generator ssh-keygen's rule gives: 2 where p ≡ 11 (mod 24), else 5 (p mod 10 is 3 or 7).
      expect(g[5]).toBe(p % 24n === 11n ? '2' : '5');
      if (g[5] === '5') expect([3n, 7n]).toContain(p % 10n);
    }
    const kept = screenedBySshKeygen(file);
    expect(kept.map((g) => g[6])).toEqual(ours.map((g) => g[6]));
    expect(kept.map((g) => g[5])).toEqual(ours.map((g) => g[5]));
  });

  it('the same seed gives the same moduli, on stdout as in a file; another seed others', () => {
    const file = path.join(tmp(), 'a');
    expect(cli('moduli', '--bits', '2048', '--count', '2', '--seed', '0x2a', '--out', file).status).toBe(0);
    const printed = cli('moduli', '--bits', '2048', '--count', '2', '--seed', '42');
    expect(printed.status, printed.stderr).toBe(0);
    expect(timelessLines(printed.stdout)).toEqual(timeless(file));
    const other = cli('moduli', '--bits', '2048', '--count', '2', '--seed', '43');
    expect(timelessLines(other.stdout)).toHaveLength(2);
    expect(timelessLines(other.stdout)).not.toEqual(timeless(file));
  });

  it('resumes where the file ends, and refuses a file of another seed or size', () => {
    const file = path.join(tmp(), 'moduli');
    expect(cli('moduli', '--bits', '2048', '--count', '1', '--seed', '7', '--out', file).status).toBe(0);
    const first = timeless(file);
    const more = cli('moduli', '--bits', '2048', '--count', '3', '--out', file);
    expect(more.status, more.stderr).toBe(0);
    expect(more.stdout).toBe(`2 new moduli; 3 in ${file} (seed 7)\n`);
    expect(timeless(file).slice(0, 1)).toEqual(first);
    const whole = cli('moduli', '--bits', '2048', '--count', '3', '--seed', '7');
    expect(timelessLines(whole.stdout)).toEqual(timeless(file));
    // Complete, with a torn tail from a crash: nothing to add, and the file still ends whole.
    const complete = readFileSync(file, 'utf8');
    appendFileSync(file, complete.split('\n')[1]!.slice(0, 100));
    expect(cli('moduli', '--bits', '2048', '--count', '3', '--out', file).stdout).toBe(`0 new moduli; 3 in ${file} (seed 7)\n`);
    expect(readFileSync(file, 'utf8')).toBe(complete);
    const seed = cli('moduli', '--bits', '2048', '--count', '4', '--seed', '8', '--out', file);
    expect(seed).toMatchObject({ status: 2, stderr: `powprime: --out file ${file} was written with seed 7, not 8; use another file\n` });
    const size = cli('moduli', '--bits', '3072', '--count', '4', '--out', file);
    expect(size.status).toBe(2);
    expect(size.stderr).toMatch(/line 2 holds a 2048-bit modulus, and --bits is 3072; add its sizes \(--bits 2048,3072\) to go on with it, or use another file/);
  });

  it('refuses a tampered --out file, naming the line, before any work', () => {
    const file = path.join(tmp(), 'moduli');
    expect(cli('moduli', '--bits', '2048', '--count', '2', '--seed', '9', '--out', file).status).toBe(0);
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const fields = lines[2]!.split(' ');
    const p = BigInt(`0x${fields[6]}`);
    // The second modulus moved up by 120 (the same generator class, within its index's share): its form holds, its primality does not.
    lines[2] = [...fields.slice(0, 6), (p + 120n).toString(16).toUpperCase()].join(' ');
    writeFileSync(file, lines.join('\n'));
    const r = cli('moduli', '--bits', '2048', '--count', '3', '--out', file);
    expect(r).toMatchObject({ status: 2, stderr: `powprime: --out file ${file} line 3: the modulus or (modulus-1)/2 is not prime (refusing to resume from it)\n` });
    // The first group's line again in the second's place: not the group its index gives.
    lines[2] = lines[1]!;
    writeFileSync(file, lines.join('\n'));
    const moved = cli('moduli', '--bits', '2048', '--count', '3', '--out', file);
    expect(moved).toMatchObject({
      status: 2,
      stderr: `powprime: --out file ${file} line 3: not group 1 of the 2048-bit run with seed 9 (a line moved, or from another file or run) (refusing to resume from it)\n`,
    });
    writeFileSync(file, `${text}garbage\n`);
    expect(cli('moduli', '--bits', '2048', '--count', '3', '--out', file).stderr).toBe(`powprime: --out file ${file} line 4 is not a moduli line: 1 field, not 7; refusing to append to it\n`);
    // A tab where sshd reads one space (it splits fields at single spaces): the line would not be read, so it is not resumed from.
    lines[2] = text.split('\n')[2]!.replace(/ (?=[0-9A-F]+$)/, '\t');
    writeFileSync(file, lines.join('\n'));
    expect(cli('moduli', '--bits', '2048', '--count', '3', '--out', file)).toMatchObject({
      status: 2,
      stderr: `powprime: --out file ${file} line 3 is not written as powprime writes a group (one space between fields, upper-case hex, no leading zeros): it was edited; refusing to append to it\n`,
    });
    // Through a Windows editor, and a header naming a seed no run has: each said in one line.
    writeFileSync(file, text.replaceAll('\n', '\r\n'));
    expect(cli('moduli', '--bits', '2048', '--count', '3', '--out', file).stderr).toBe(
      `powprime: --out file ${file} line 1 ends in CR (a Windows line ending): convert the file back (dos2unix) first; refusing to append to it\n`,
    );
    writeFileSync(file, text.replace('seed 9 ', `seed ${1n << 256n} `));
    expect(cli('moduli', '--bits', '2048', '--count', '3', '--out', file)).toMatchObject({
      status: 2,
      stderr: `powprime: --out file ${file} line 1 names a seed of 2^256 or more, which no run has; refusing to append to it\n`,
    });
  });

  it('a kill -9 leaves whole lines, SIGTERM exits 143, and reruns complete the same moduli', async () => {
    const file = path.join(tmp(), 'moduli');
    // More than either run can find before it is stopped.
    const args = ['moduli', '--bits', '2048', '--count', '60', '--seed', '77', '--out', file];
    const a = startCli(args);
    await a.waitFor(() => existsSync(file) && groups(file).length >= 2, 'two moduli');
    await a.kill9();
    expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
    const left = groups(file).length;
    // Stopped once it has added one of its own: past the resume's checks.
    const b = startCli(args);
    await b.waitFor(() => groups(file).length > left, 'a modulus of its own');
    b.child.kill('SIGTERM');
    const stopped = await b.exited;
    expect(stopped.status).toBe(143);
    expect(stopped.stderr).toMatch(/^powprime: interrupted \(SIGTERM\): \d+ new modul(us|i) kept; rerun the same command to resume\n$/);
    expect(existsSync(`${file}.lock`)).toBe(false);
    // One more than the two runs left, then the same count in one straight run: the same moduli.
    const count = String(groups(file).length + 1);
    expect(cli('moduli', '--bits', '2048', '--count', count, '--out', file).status).toBe(0);
    const straight = cli('moduli', '--bits', '2048', '--count', count, '--seed', '77');
    expect(timelessLines(straight.stdout)).toEqual(timeless(file));
  });

  it('stopped without --out, says its saved stdout resumes it, and --out on that file does', async () => {
    const file = path.join(tmp(), 'saved');
    // stdout to a file, as a shell's `> saved` has it.
    const a = startCli(['moduli', '--bits', '2048', '--count', '40', '--seed', '78'], {}, file);
    await a.waitFor(() => timeless(file).length >= 1, 'a modulus in the file');
    a.child.kill('SIGTERM');
    const stopped = await a.exited;
    expect(stopped.status).toBe(143);
    expect(stopped.stderr).toMatch(/^powprime: interrupted \(SIGTERM\): \d+ new modul(us|i) kept; to resume, rerun it with --out naming the file stdout went to\n$/);
    // To a pipe nothing is kept: the advice is a resumable run.
    const piped = startCli(['moduli', '--bits', '2048', '--count', '40', '--seed', '78']);
    await piped.waitFor((out) => out.startsWith('# powprime moduli'), 'the header on stdout');
    piped.child.kill('SIGTERM');
    expect((await piped.exited).stderr).toMatch(/kept; rerun with --seed and --out to make a run resumable\n$/);
    // The advice taken, a run of one more goes on from the file.
    const saved = timeless(file);
    const resumed = cli('moduli', '--bits', '2048', '--count', String(saved.length + 1), '--out', file);
    expect(resumed.stdout).toBe(`1 new modulus; ${saved.length + 1} in ${file} (seed 78)\n`);
    expect(timeless(file).slice(0, -1)).toEqual(saved);
  });

  it('bad usage: one line, exit 2', () => {
    const cases: [string[], RegExp][] = [
      [['moduli', '--bits', '1024', '--count', '1'], /--bits must be an integer from 2048 to 8192 \(got 1024\)/],
      [['moduli', '--bits', '2048,abc', '--count', '1'], /--bits must be an integer \(got "abc"\)/],
      [['moduli', '--bits', '2048,2048', '--count', '1'], /--bits names 2048 twice/],
      // Repeated, the lists add up (commander would keep the last alone).
      [['moduli', '--bits', '2048', '--bits', '3072,2048', '--count', '1'], /--bits names 2048 twice/],
      [['moduli', '--bits', '2048'], /--count is needed/],
      [['moduli', '--bits', '1024'], /--bits must be an integer from 2048 to 8192 \(got 1024\)/],
      [['moduli', '--bits', '2048,,3072', '--count', '1'], /--bits has an empty item \(got "2048,,3072"\)/],
      // Repeated, each list is quoted as it was given, not as the joined text.
      [['moduli', '--bits', '2048', '--bits', '', '--count', '1'], /--bits has an empty item \(got ""\)/],
      [['moduli', '--screen', 'x', '--shard-count', '2'], /--shard-count does not go with --screen/],
      [['moduli', '--screen', 'x', '--queue-name', 'q'], /--queue-name does not go with --screen/],
      [['moduli', '--count', '2'], /--bits is needed/],
      [['moduli', '--count', '2', '--out', 'm.txt'], /--bits is needed \(or --screen FILE to check a moduli file\); to resume --out, give the sizes the run was started with/],
      [['moduli', '--bits', '2048', '--count', '1', '--json'], /--json goes with --out/],
      [['moduli', '--screen', 'x', '--bits', '2048'], /--bits does not go with --screen/],
      [['moduli', '--screen', 'x', '--threads', '0'], /--threads must be an integer from 1 to/],
      [['moduli', '--bits', '2048', '--count', '1', '--out', '/dev/full'], /--out \/dev\/full is not a regular file/],
    ];
    for (const [args, message] of cases) {
      const r = cli(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^powprime: ${message.source}.*\\n$`));
    }
  });
});

describe.runIf(hasNative && openssh('powprime moduli --screen', [sshKeygen]))('powprime moduli --screen', () => {
  const sample = readFileSync(new URL('./vectors/openssh-moduli-sample.txt', import.meta.url), 'utf8');

  it("keeps every group of OpenSSH's own file, rewritten as tested here; ssh-keygen keeps ours", () => {
    const dir = tmp();
    const input = path.join(dir, 'system');
    // The 2048- and 3072-bit groups and the header (the larger ones take longer to check).
    writeFileSync(input, sample.split('\n').slice(0, 5).join('\n'));
    const out = path.join(dir, 'checked');
    const r = cli('moduli', '--screen', input, '--out', out, '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ file: input, out, lines: 4, good: 4, bad: 0, dropped: 0 });
    const kept = groups(out);
    // Tries: the file's 100 and ours (Baillie-PSW's base-2 round and the default rounds: 4 at these sizes, +1).
    expect(kept.map((g) => g.slice(1).join(' '))).toEqual(
      sample
        .split('\n')
        .slice(1, 5)
        .map((l) => l.split(' '))
        .map((g) => [g[1], g[2], String(100 + 5), ...g.slice(4)].join(' ')),
    );
    expect(screenedBySshKeygen(out).map((g) => g[6])).toEqual(kept.map((g) => g[6]));
  });

  it('--progress json: each tick says the phase, its numbers and its share of the work, the last one all of it', () => {
    const dir = tmp();
    const input = path.join(dir, 'system');
    writeFileSync(input, sample.split('\n').slice(0, 5).join('\n'));
    const r = cli('--progress', 'json', 'moduli', '--screen', input, '--out', path.join(dir, 'checked'), '--threads', '1');
    expect(r.status, r.stderr).toBe(0);
    // The closing summary is the last line, as without --progress.
    expect(r.stderr).toMatch(/4 good, 0 bad; good groups in .*\n$/);
    const ticks = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { phase: string; done: number; total: number; workDone: number; etaMs: number | null });
    expect(ticks.map((t) => [t.phase, t.done, t.total])).toEqual([1, 2, 3, 4].map((n) => ['checking', n, 4]));
    // Two 2048-bit groups, then two 3072-bit ones, weighed by size cubed: 8, 8, 27, 27 of 70.
    // (JSON progress gives fractions to three decimals.)
    expect(ticks.map((t) => t.workDone)).toEqual([8, 16, 43, 70].map((n) => Number((n / 70).toFixed(3))));
    // Too early to say at the first ticks (under 3 s), and nothing left at the end.
    expect(ticks.at(-1)!.etaMs).toBe(0);
  });

  it('names every bad line of a corrupted file with its number, keeps the good ones, exit 1', () => {
    const dir = tmp();
    const good = sample.split('\n')[1]!.split(' ');
    const p = BigInt(`0x${good[6]}`);
    const composite = (p + 24n * 5n).toString(16).toUpperCase(); // same class mod 120, not prime (node:crypto below)
    expect(checkPrimeSync(p + 120n)).toBe(false);
    const lines = [
      '# a header',
      good.join(' '),
      [...good.slice(0, 5), '5', good[6]].join(' '), // wrong generator
      [...good.slice(0, 4), '2048', ...good.slice(5)].join(' '), // wrong size
      [...good.slice(0, 6), composite].join(' '),
      'garbage',
      [good[0], '2', '7', ...good.slice(3)].join(' '), // marked composite
      '',
    ];
    const input = path.join(dir, 'bad');
    writeFileSync(input, lines.join('\n'));
    const r = cli('moduli', '--screen', input);
    expect(r.status).toBe(1);
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ')[6]),
    ).toEqual([good[6]]);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      `powprime: ${input} line 3: generator 5, but ssh-keygen's rule gives 2`,
      `powprime: ${input} line 4: size 2048, but the modulus has 2048 bits (size is the bit length minus one)`,
      `powprime: ${input} line 5: p or (p-1)/2 is not prime`,
      `powprime: ${input} line 6: not a moduli line: 1 field, not 7`,
      `powprime: ${input} line 7: marked composite (tests has 0x01)`,
    ]);
  });

  it("screened in place, a run's file keeps its header and still resumes; one that lost a line is written without it, and says so", () => {
    const dir = tmp();
    const file = path.join(dir, 'run');
    expect(cli('moduli', '--bits', '2048', '--count', '2', '--seed', '7', '--out', file).status).toBe(0);
    const before = readFileSync(file, 'utf8').split('\n');
    const screened = cli('moduli', '--screen', file, '--out', file);
    expect(screened.status, screened.stderr).toBe(0);
    const after = readFileSync(file, 'utf8').split('\n');
    expect(after[0]).toBe(before[0]);
    expect(after.map((l) => l.split(' ')[6])).toEqual(before.map((l) => l.split(' ')[6]));
    expect(cli('moduli', '--bits', '2048', '--count', '3', '--out', file)).toMatchObject({ status: 0, stdout: `1 new modulus; 3 in ${file} (seed 7)\n` });
    const spoiled = path.join(dir, 'spoiled');
    writeFileSync(spoiled, readFileSync(file, 'utf8').replace(/\n[^\n]+\n/, '\ngarbage\n'));
    const out = path.join(dir, 'out');
    const r = cli('moduli', '--screen', spoiled, '--out', out);
    expect(r.status).toBe(1);
    expect(readFileSync(out, 'utf8')).not.toContain('#');
    expect(groups(out)).toHaveLength(2);
    expect(r.stderr).toContain(`powprime: the good groups are written without ${spoiled}'s powprime header`);
    // Torn by a crash mid-line: the way to keep the header is said.
    const torn = path.join(dir, 'torn');
    writeFileSync(torn, readFileSync(file, 'utf8').slice(0, -40));
    const t = cli('moduli', '--screen', torn);
    expect(t.status).toBe(1);
    expect(t.stderr).toMatch(/its last line is torn, as a crash leaves it: resume the run with moduli --out first, which cuts it, then screen\)\n$/);
    // Read with CRLF endings, the header is written back with \n alone, as every line.
    const crlf = path.join(dir, 'crlf');
    writeFileSync(crlf, readFileSync(file, 'utf8').replaceAll('\n', '\r\n'));
    const c = cli('moduli', '--screen', crlf);
    expect(c.status, c.stderr).toBe(0);
    expect(c.stdout).not.toContain('\r');
    expect(c.stdout.split('\n')[0]).toBe(before[0]);
  });

  it("screens ssh-keygen's own candidates (type 4) to the groups ssh-keygen keeps", () => {
    const input = fileURLToPath(new URL('./vectors/ssh-keygen-candidates-768.txt', import.meta.url));
    const dir = tmp();
    const out = path.join(dir, 'screened');
    // One thread, as a shared machine's admin would ask (the library's test counts the tasks in flight).
    const r = cli('moduli', '--screen', input, '--out', out, '--json', '--threads', '1');
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { good: number; bad: number; dropped: number; lines: number };
    expect(summary.bad).toBe(0);
    expect(summary.good).toBeGreaterThan(1);
    expect(summary.good + summary.dropped).toBe(summary.lines);
    const theirs = screenedBySshKeygen(input);
    expect(groups(out).map((g) => [g[4], g[5], g[6]])).toEqual(theirs.map((g) => [g[4], g[5], g[6]]));
  });

  it('reads stdin (-); a file with no moduli line in it is one line, exit 2; nothing good leaves --out as it was', () => {
    const dir = tmp();
    const groups2048 = sample.split('\n').slice(1, 3);
    const piped = spawnSync(process.execPath, [...CLI_ENTRY, 'moduli', '--screen', '-'], { input: `# head\n${groups2048.join('\n')}\n`, encoding: 'utf8' });
    expect(piped.status, piped.stderr).toBe(0);
    expect(
      piped.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ')[6]),
    ).toEqual(groups2048.map((l) => l.split(' ')[6]));

    const binary = path.join(dir, 'binary');
    // Not gzip's magic number by chance.
    writeFileSync(binary, Buffer.concat([Buffer.from([0]), randomBytes(1 << 16)]));
    const notModuli = cli('moduli', '--screen', binary);
    expect(notModuli.status).toBe(2);
    expect(notModuli.stderr).toMatch(new RegExp(`^powprime: --screen ${binary} is not a moduli file \\(line \\d+: not a moduli line: [^\\n]*\\)\\n$`));
    // A distribution's compressed copy: said so, with the way to read it.
    const gz = path.join(dir, 'moduli.gz');
    writeFileSync(gz, gzipSync(sample));
    expect(cli('moduli', '--screen', gz)).toMatchObject({ status: 2, stderr: `powprime: --screen ${gz} is gzip-compressed: screen <(zcat ${gz}) instead\n` });

    // The file a mistaken --screen would have replaced: kept, byte for byte.
    const out = path.join(dir, 'moduli');
    writeFileSync(out, 'the groups in use\n');
    const good = groups2048[0]!.split(' ');
    const composite = path.join(dir, 'composite');
    writeFileSync(composite, `${[...good.slice(0, 6), (BigInt(`0x${good[6]}`) + 120n).toString(16).toUpperCase()].join(' ')}\n`);
    expect(checkPrimeSync(BigInt(`0x${good[6]}`) + 120n)).toBe(false);
    const lost = `powprime: --out ${out} holds 1 line the screen would not keep (it is not one of the inputs): give it as an input too, write elsewhere, or remove it first\n`;
    expect(cli('moduli', '--screen', composite, '--out', out)).toMatchObject({ status: 2, stderr: lost });
    expect(readFileSync(out, 'utf8')).toBe('the groups in use\n');
    // Screened in place, nothing passing: exit 1, and the file as it was.
    const none = cli('moduli', '--screen', composite, '--out', composite);
    expect(none.status).toBe(1);
    expect(none.stderr).toBe(`powprime: ${composite} line 1: p or (p-1)/2 is not prime\n0 good, 1 bad; ${composite} left as it was\n`);
    expect(readFileSync(composite, 'utf8')).toMatch(/^\d{14} 2 /);

    const comments = path.join(dir, 'comments');
    writeFileSync(comments, '# nothing here\n\n');
    expect(cli('moduli', '--screen', comments, '--out', path.join(dir, 'new'))).toMatchObject({ status: 1, stderr: `powprime: ${comments} holds no moduli lines (only comments or blank lines)\n` });
    expect(existsSync(path.join(dir, 'new'))).toBe(false);
    const empty = path.join(dir, 'empty');
    writeFileSync(empty, '');
    expect(cli('moduli', '--screen', empty)).toMatchObject({ status: 1, stdout: '', stderr: `powprime: ${empty} is empty\n` });
  });

  it("replaces an --out only when it keeps every group of it: another file's groups are refused, at once and after the tests", () => {
    const dir = tmp();
    const lines = sample.split('\n').filter((l) => /^\d/.test(l));
    const write = (name: string, ...ls: string[]): string => {
      const f = path.join(dir, name);
      writeFileSync(f, ls.map((l) => `${l}\n`).join(''));
      return f;
    };
    const input = write('input', lines[0]!, lines[1]!);
    const out = path.join(dir, 'checked');
    expect(cli('moduli', '--screen', input, '--out', out).status).toBe(0);
    // Again over its own earlier output: the same groups (new timestamps and tries), so it may be replaced.
    const again = cli('moduli', '--screen', input, '--out', out);
    expect(again.status, again.stderr).toBe(0);
    // The system's file as --out of a screen of fewer groups: refused before any test, left byte for byte.
    const system = write('system', ...lines);
    const before = readFileSync(system, 'utf8');
    const r = cli('moduli', '--screen', input, '--out', system);
    expect(r).toMatchObject({
      status: 2,
      stderr: `powprime: --out ${system} holds ${lines.length - 2} lines the screen would not keep (it is not one of the inputs): give it as an input too, write elsewhere, or remove it first\n`,
    });
    expect(readFileSync(system, 'utf8')).toBe(before);
    // Its groups all in the input, one of them failing the tests: refused after them, the file kept.
    const p = BigInt(`0x${lines[1]!.split(' ')[6]}`);
    const broken = write('broken', lines[0]!, [...lines[1]!.split(' ').slice(0, 6), (p + 120n).toString(16).toUpperCase()].join(' '));
    const target = write('target', lines[0]!, lines[1]!.replace(lines[1]!.split(' ')[6]!, (p + 120n).toString(16).toUpperCase()));
    const kept = readFileSync(target, 'utf8');
    const late = cli('moduli', '--screen', broken, '--out', target);
    expect(late.status).toBe(2);
    expect(late.stderr).toMatch(new RegExp(`--out ${target} holds 1 line the screen would not keep`));
    expect(readFileSync(target, 'utf8')).toBe(kept);
  });

  it('refuses an --out a moduli run is appending to, and leaves the run its file', async () => {
    const dir = tmp();
    const file = path.join(dir, 'moduli');
    const input = path.join(dir, 'system');
    writeFileSync(input, `${sample.split('\n')[1]}\n`);
    const run = startCli(['moduli', '--bits', '2048', '--count', '60', '--seed', '5', '--threads', '1', '--out', file]);
    await run.waitFor(() => existsSync(file) && groups(file).length >= 1, 'its first modulus');
    const before = readFileSync(file, 'utf8');
    const r = cli('moduli', '--screen', input, '--out', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^powprime: --out ${file} is being written by another run \\(pid \\d+[^\n]*\n$`));
    // Still the run's file, one it goes on adding to.
    expect(readFileSync(file, 'utf8').startsWith(before)).toBe(true);
    const had = groups(file).length;
    await run.waitFor(() => groups(file).length > had, 'a modulus after the refusal');
    run.child.kill('SIGTERM');
    expect((await run.exited).status).toBe(143);
  });

  it('a stop while it waits on stdin is honoured at once, not when the writer closes it', async () => {
    const run = startCli(['moduli', '--screen', '-']);
    // Half a file: the writer is still writing.
    run.child.stdin!.write(`${sample.split('\n')[1]}\n`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    run.child.kill('SIGINT');
    const r = await run.exited;
    expect(r.status).toBe(130);
    expect(run.child.stdin!.writableEnded).toBe(false);
  });

  it('a file that is not there, a folder: exit 2', () => {
    expect(cli('moduli', '--screen', path.join(tmp(), 'none')).status).toBe(2);
    expect(cli('moduli', '--screen', tmp()).stderr).toMatch(/is a directory/);
  });
});
