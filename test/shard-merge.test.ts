// search --shard and powprime merge: shards of a run merged equal the run, whatever scheduler launched them.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { searchSafePrimes } from '../src/index.ts';
import { parseShard, shardSize } from '../src/cli/shard.ts';
import { runCli, runCliSync } from './helpers/cli.ts';
import { isSafePrimeByNodeCrypto } from './helpers/number-theory.ts';
import { tempDir } from './helpers/tmp.ts';

const BITS = 256;
const SEED = 4242n;
const COUNT = 7;

async function localRun(count: number): Promise<string[]> {
  const out: string[] = [];
  for await (const r of searchSafePrimes({ bits: BITS, seed: SEED, count })) out.push(`${r.index}:${r.prime}`);
  return out;
}

function lines(file: string): { prime: string; bits: number; seed: string; index: number; elapsedMs: number }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

const keyed = (file: string): string[] => lines(file).map((l) => `${l.index}:${l.prime}`);

describe('parseShard', () => {
  it('takes i/n, 1-based', () => {
    expect(parseShard('2/3', undefined)).toMatchObject({ k: 1, n: 3 });
    expect(parseShard('1/1', undefined)).toMatchObject({ k: 0, n: 1 });
  });

  it('reads Kubernetes, Slurm and GNU parallel indexes with auto', () => {
    expect(parseShard('auto', '4', { JOB_COMPLETION_INDEX: '3' })).toMatchObject({ k: 3, n: 4, source: 'JOB_COMPLETION_INDEX' });
    expect(parseShard('auto', undefined, { SLURM_ARRAY_TASK_ID: '5', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '8' })).toMatchObject({ k: 4, n: 8 });
    expect(parseShard('auto', undefined, { SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_COUNT: '2' })).toMatchObject({ k: 0, n: 2 });
    expect(parseShard('auto', '3', { PARALLEL_SEQ: '3' })).toMatchObject({ k: 2, n: 3, source: 'PARALLEL_SEQ' });
    // A Slurm task with no count (not an array, or the variable dropped by a wrapper): said, not "must be a whole number (got \"\")".
    expect(() => parseShard('auto', undefined, { SLURM_ARRAY_TASK_ID: '2' })).toThrow(
      '--shard auto found SLURM_ARRAY_TASK_ID but no SLURM_ARRAY_TASK_COUNT (Slurm sets it for job arrays): add --shard-count N',
    );
    expect(parseShard('auto', '4', { SLURM_ARRAY_TASK_ID: '2' })).toMatchObject({ k: 2, n: 4 });
  });

  it.each([
    ['0/3', undefined, {}, /i\/n|from 1/],
    ['4/3', undefined, {}, /does not exist/],
    ['2-3', undefined, {}, /--shard must be i\/n/],
    ['auto', undefined, {}, /found no scheduler variable/],
    ['auto', undefined, { JOB_COMPLETION_INDEX: '1' }, /--shard-count/],
    ['auto', '2', { JOB_COMPLETION_INDEX: '2' }, /does not exist/],
    ['auto', undefined, { PARALLEL_SEQ: '1' }, /--shard-count/],
    ['auto', '2', { PARALLEL_SEQ: 'x' }, /PARALLEL_SEQ must be a whole number/],
    ['auto', undefined, { SLURM_ARRAY_TASK_ID: '1' }, /SLURM_ARRAY_TASK_COUNT/],
  ] as const)('refuses %s (count %s, env %j)', (spec, count, env, message) => {
    expect(() => parseShard(spec, count, env)).toThrow(message);
  });

  it('shard sizes add up to the count', () => {
    for (const total of [1, 2, 7, 100]) {
      for (const n of [1, 2, 3, 8, 150]) {
        let sum = 0;
        for (let k = 0; k < n; k++) sum += shardSize({ k, n, source: '' }, total);
        expect(sum).toBe(total);
      }
    }
  });
});

describe('search --shard and merge', () => {
  it('three shards merged equal the local run; each shard holds its own indexes', async () => {
    const dir = tempDir();
    const expected = await localRun(COUNT);
    const files = [1, 2, 3].map((i) => join(dir, `s${i}.jsonl`));
    const runs = await Promise.all(files.map((f, i) => runCli('search', '--bits', String(BITS), '--count', String(COUNT), '--seed', String(SEED), '--shard', `${i + 1}/3`, '--out', f)));
    for (const r of runs) expect(r.status).toBe(0);
    for (const [i, f] of files.entries()) expect(lines(f).map((l) => l.index)).toEqual([0, 1, 2, 3, 4, 5, 6].filter((x) => x % 3 === i));
    const merged = join(dir, 'merged.jsonl');
    const m = await runCli('merge', ...files, '--out', merged, '--json');
    expect(m.status).toBe(0);
    expect(JSON.parse(m.stdout)).toEqual({ out: merged, files: 3, lines: 7, primes: 7, duplicates: 0 });
    expect(keyed(merged)).toEqual(expected);
    for (const l of lines(merged)) {
      expect(l).toMatchObject({ bits: BITS, seed: String(SEED) });
      const p = BigInt(l.prime);
      expect(isSafePrimeByNodeCrypto(p)).toBe(true);
    }
  });

  it('--shard auto reads the scheduler; a shard resumes from its --out like a whole run', async () => {
    const dir = tempDir();
    const expected = (await localRun(COUNT)).filter((_, i) => i % 2 === 1);
    const f = join(dir, 'slurm.jsonl');
    const env = { SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '2' };
    const first = runCliSync.withEnv(env)('search', '--bits', String(BITS), '--count', '4', '--seed', String(SEED), '--shard', 'auto', '--out', f);
    expect(first.status).toBe(0);
    expect(keyed(f)).toEqual(expected.slice(0, 2));
    const rest = runCliSync.withEnv(env)('search', '--bits', String(BITS), '--count', String(COUNT), '--shard', 'auto', '--out', f);
    expect(rest.status).toBe(0);
    expect(keyed(f)).toEqual(expected);
    // Another shard's file is not this shard's run.
    const wrong = await runCli('search', '--bits', String(BITS), '--count', String(COUNT), '--shard', '1/2', '--out', f);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/does not continue this shard's run/);
  });

  it('--shard needs a seed', async () => {
    const r = await runCli('search', '--bits', '64', '--count', '3', '--shard', '1/2');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--shard needs --seed/);
  });

  it('a shard with none of the indexes says so, off a terminal too, and ends 0 having done nothing', async () => {
    const search = await runCli('search', '--bits', '64', '--count', '2', '--seed', '5', '--shard', '3/3');
    expect(search).toMatchObject({ status: 0, stdout: '', stderr: 'powprime: shard 3 of 3 has no index: --count 2 gives work to the first 2 shards only; nothing to do\n' });
    const moduli = await runCli('moduli', '--bits', '2048,3072', '--count', '1', '--seed', '5', '--shard', '2/2');
    expect(moduli).toMatchObject({ status: 0, stderr: 'powprime: shard 2 of 2 has no index: --count 1 of each size gives work to shard 1 only; nothing to do\n' });
    expect(moduli.stdout).toMatch(/^# powprime moduli: seed 5 stream 2 shard 2\/2 [^\n]*\n$/);
    // With --out the empty shard leaves its file, so merging every shard's file works.
    const dir = tempDir();
    const [s1, s3] = [join(dir, 's1.jsonl'), join(dir, 's3.jsonl')];
    expect((await runCli('search', '--bits', '64', '--count', '1', '--seed', '5', '--shard', '1/3', '--out', s1)).status).toBe(0);
    expect(await runCli('search', '--bits', '64', '--count', '1', '--seed', '5', '--shard', '3/3', '--out', s3)).toMatchObject({ status: 0, stdout: `0 new safe primes; 0 in ${s3} (seed 5)\n` });
    expect(readFileSync(s3, 'utf8')).toBe('');
    const merged = await runCli('merge', s1, s3);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toBe(readFileSync(s1, 'utf8'));
  });

  it('merge of nothing is found-nothing (exit 1, said); a line no search could write is refused (exit 2)', async () => {
    const dir = tempDir();
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    expect(await runCli('merge', empty)).toMatchObject({ status: 1, stdout: '', stderr: 'powprime: no safe primes in 1 file; nothing written\n' });
    // 23 is a safe prime of 5 bits, below any search's 16: search --out refuses such a file, and so does merge.
    const tiny = join(dir, 'tiny.jsonl');
    writeFileSync(tiny, '{"prime":"23","bits":5,"seed":"1","index":0,"elapsedMs":0}\n');
    expect(await runCli('merge', tiny)).toMatchObject({ status: 2, stdout: '', stderr: `powprime: ${tiny} line 1: "bits":5 is not a search's bit length (16 to 16384)\n` });
  });

  it('merge drops duplicates, warns about missing indexes, and writes stdout without --out', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.jsonl');
    expect((await runCli('search', '--bits', String(BITS), '--count', '5', '--seed', String(SEED), '--shard', '1/2', '--out', a)).status).toBe(0);
    const r = await runCli('merge', a, a);
    expect(r.status).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).index),
    ).toEqual([0, 2, 4]);
    expect(r.stderr).toMatch(/^powprime: warning: the 256-bit search with seed 4242 lacks indexes 1, 3$/m);
  });

  it('merge --out replaces a file that is not an input only when it keeps every line of it', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    const merged = join(dir, 'merged.jsonl');
    expect((await runCli('search', '--bits', String(BITS), '--count', '4', '--seed', String(SEED), '--shard', '1/2', '--out', a)).status).toBe(0);
    expect((await runCli('search', '--bits', String(BITS), '--count', '4', '--seed', String(SEED), '--shard', '2/2', '--out', b)).status).toBe(0);
    // An earlier merge of one shard: every line of it is in the merge of both, so it is replaced.
    expect((await runCli('merge', a, '--out', merged)).status).toBe(0);
    expect((await runCli('merge', a, b, '--out', merged)).status).toBe(0);
    expect(lines(merged).map((l) => l.index)).toEqual([0, 1, 2, 3]);
    // A file of other lines (here another search's) would lose them: refused, left byte for byte.
    const other = join(dir, 'other.jsonl');
    expect((await runCli('search', '--bits', String(BITS), '--count', '1', '--seed', '7', '--out', other)).status).toBe(0);
    const before = readFileSync(other);
    const r = await runCli('merge', a, b, '--out', other);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`powprime: --out ${other} holds 1 line the merge would not keep (it is not one of the inputs): give it as an input too, write elsewhere, or remove it first\n`);
    expect(readFileSync(other)).toEqual(before);
    // Refused before the lines are verified: an input that would fail it (p + 2 ≡ 1 mod 24 is never safe) still gets the --out refusal.
    const forged = join(dir, 'forged.jsonl');
    const [first] = lines(a);
    writeFileSync(forged, `${JSON.stringify({ ...first, index: 9, prime: String(BigInt(first!.prime) + 2n) })}\n`);
    const early = await runCli('merge', a, b, forged, '--out', other);
    expect(early.status).toBe(2);
    expect(early.stderr).toMatch(/^powprime: --out .* holds 1 line the merge would not keep/);
    expect(readFileSync(other)).toEqual(before);
    // Given as an input, its lines are kept.
    expect((await runCli('merge', a, b, other, '--out', other)).status).toBe(0);
    expect(lines(other)).toHaveLength(5);
  });

  it('merge refuses conflicting lines and primes that are not safe, naming file and line (exit 2)', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.jsonl');
    expect((await runCli('search', '--bits', String(BITS), '--count', '2', '--seed', String(SEED), '--out', a)).status).toBe(0);
    const [l0, l1] = lines(a);
    // Another safe prime of index 0's share (the next one, 12 apart in the stream's steps): a line
    // for that index that differs from the run's, though it lies where the run could have put it.
    let other = BigInt(l0!.prime) + 12n;
    while (!isSafePrimeByNodeCrypto(other)) other += 12n;
    const conflict = join(dir, 'conflict.jsonl');
    writeFileSync(conflict, `${JSON.stringify({ ...l0, prime: other.toString() })}\n`);
    const c = await runCli('merge', a, conflict, '--out', join(dir, 'm.jsonl'));
    expect(c.status).toBe(2);
    expect(c.stderr).toContain(`conflicting lines for index 0 of the 256-bit search with seed 4242: ${a} line 1 says ${l0!.prime}, ${conflict} line 1 says ${other}`);

    // A line moved to another index (index 1's prime said to be index 0's): refused by where its prime lies.
    const moved = join(dir, 'moved.jsonl');
    writeFileSync(moved, `${JSON.stringify({ ...l1, index: 0 })}\n`);
    const mv = await runCli('merge', moved, '--out', join(dir, 'm.jsonl'));
    expect(mv.status).toBe(2);
    expect(mv.stderr).toBe(`powprime: ${moved} line 1: "prime" is not index 0's of the 256-bit run with seed 4242 (a line moved, or from another file or run)\n`);

    const notSafe = join(dir, 'not-safe.jsonl');
    writeFileSync(notSafe, `${JSON.stringify({ ...l0, prime: (BigInt(l0!.prime) + 12n).toString() })}\n`);
    const n = await runCli('merge', notSafe);
    expect(n.status).toBe(2);
    expect(n.stderr).toMatch(new RegExp(`${notSafe} line 1: \\d+ is not a safe prime`));

    const garbage = join(dir, 'garbage.jsonl');
    writeFileSync(garbage, 'hello\n');
    const g = await runCli('merge', garbage);
    expect(g.status).toBe(2);
    expect(g.stderr.trim().split('\n')).toHaveLength(1);
    const missing = await runCli('merge', join(dir, 'nope.jsonl'));
    expect(missing.status).toBe(2);
  });
});
