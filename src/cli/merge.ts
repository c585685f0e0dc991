import type { Command } from 'commander';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { lackedIndexes } from './index-gaps.ts';
import { checkNothingLost } from './merge-target.ts';
import { checkShardFileKept, inputKind, mergeModuli } from './moduli-merge.ts';
import { readExisting, type SearchLine } from './jsonl-file.ts';
import { lockOutFile } from './out-file.ts';
import { replaceablePath } from './out-path.ts';
import { plural } from './plural.ts';
import { checkInputFile } from './read-input.ts';
import { verifyLines, type Located, lineStream } from './verify-lines.ts';
import { tornInputWarning } from './whole-lines.ts';

interface MergeOpts {
  out?: string;
  json?: boolean;
}

type Sourced = Located;

export function registerMerge(program: Command): void {
  program
    .command('merge')
    .description('merge search --out files, or moduli --out files (shards, machines, earlier runs), into one: deduplicated, re-verified, sorted by index')
    .argument('<files...>', 'JSONL files written by powprime search, or moduli files written by powprime moduli')
    .option(
      '--out <file>',
      'write the merged lines here (whole or not at all, replacing the file) instead of stdout; may be one of the inputs, and a file that is not is replaced only when the merge keeps every line of it',
    )
    .option('--json', 'with --out: print a JSON summary')
    .addHelpText(
      'after',
      '\nExamples:\n  powprime merge s1.jsonl s2.jsonl s3.jsonl s4.jsonl --out all.jsonl\n  powprime merge all.jsonl new.jsonl --out all.jsonl   # --out may be an input\n  powprime merge m1 m2 m3 m4 --out moduli              # moduli --shard files',
    )
    .action(async (files: string[], opts: MergeOpts) => {
      if (opts.json && opts.out === undefined) throw new RangeError('--json goes with --out: without it the merged lines are the output');
      // --out may be one of the inputs, or a file a search is appending to: locked before anything is read.
      const target = opts.out === undefined ? undefined : replaceablePath(opts.out);
      // By the name given: the lock follows a link itself, and its messages name what the user typed.
      const lock = opts.out === undefined ? null : lockOutFile(opts.out);
      try {
        // Named first: a missing input is not "not a moduli file".
        for (const f of files) checkInputFile(f);
        const kinds = files.map(inputKind);
        const moduli = files.find((_, i) => kinds[i] === 'moduli');
        const other = files.find((_, i) => kinds[i] === 'other');
        if (moduli === undefined) await merge(files, opts, target);
        else if (other === undefined) await mergeModuliFiles(files, opts, target);
        else throw new RangeError(`${moduli} is a moduli file and ${other} is not: merge moduli files with moduli files, search files with search files`);
      } finally {
        lock?.release();
      }
    });
}

/** `target`: where --out is written (a link's target, replaceablePath). */
async function merge(files: string[], opts: MergeOpts, target: string | undefined): Promise<void> {
  const byKey = new Map<string, Sourced>();
  // A search (bits, seed) is one stream version: lines of two would key different primes by the same index.
  const streams = new Map<string, Sourced>();
  let read = 0;
  for (const file of files) {
    const existing = readExisting(file, 'input');
    const torn = tornInputWarning(file, existing);
    if (torn) process.stderr.write(`powprime: warning: ${torn}\n`);
    existing.lines.forEach((line, i) => {
      read++;
      const where = `${file} line ${existing.lineNos[i]}`;
      const run = streams.get(`${line.bits}/${line.seed}`);
      if (run && lineStream(run.line) !== lineStream(line)) {
        throw new RangeError(`${where} is of stream ${lineStream(line)}, but ${run.where} of the same search is of stream ${lineStream(run.line)}: streams are never mixed`);
      }
      if (!run) streams.set(`${line.bits}/${line.seed}`, { line, where });
      const key = `${line.bits}/${line.seed}/${line.index}`;
      const seen = byKey.get(key);
      if (seen && seen.line.prime !== line.prime) {
        throw new RangeError(`conflicting lines for index ${line.index} of the ${line.bits}-bit search with seed ${line.seed}: ${seen.where} says ${seen.line.prime}, ${where} says ${line.prime}`);
      }
      if (!seen) byKey.set(key, { line, where });
    });
  }
  const all = [...byKey.values()];
  // Nothing to merge is "found nothing" (exit 1), said, as for moduli files: not silence and success.
  if (all.length === 0) {
    process.exitCode = 1;
    process.stderr.write(`powprime: no safe primes in ${plural(files.length, 'file')}; nothing written\n`);
    return;
  }
  all.sort((a, b) => a.line.bits - b.line.bits || cmp(BigInt(a.line.seed), BigInt(b.line.seed)) || a.line.index - b.line.index);
  const text = all.map((s) => `${JSON.stringify(s.line)}\n`).join('');
  // Refused before the minutes of verifying, which only refuses and never changes the text.
  if (target !== undefined) checkNothingLost(target, opts.out!, files, text);
  await verifyLines(all);
  for (const gap of gaps(all.map((s) => s.line))) process.stderr.write(`powprime: warning: ${gap}\n`);
  writeMerge(text, target);
  if (target === undefined) return;
  const summary = { out: opts.out, files: files.length, lines: read, primes: all.length, duplicates: read - all.length };
  process.stdout.write(
    opts.json
      ? `${JSON.stringify(summary)}\n`
      : `${plural(all.length, 'safe prime')} from ${plural(read, 'line')} in ${plural(files.length, 'file')} (${plural(summary.duplicates, 'duplicate')}) written to ${opts.out}\n`,
  );
}

async function mergeModuliFiles(files: string[], opts: MergeOpts, target: string | undefined): Promise<void> {
  // Refused before the minutes of verifying, which only refuses and never changes the text.
  const r = await mergeModuli(files, (merged) => {
    if (target === undefined || merged.moduli === 0) return;
    checkNothingLost(target, opts.out!, files, merged.text);
    checkShardFileKept(target, opts.out!, merged);
  });
  for (const w of r.warnings) process.stderr.write(`powprime: warning: ${w}\n`);
  // Nothing to merge is "found nothing" (exit 1), said, not an empty file and success.
  if (r.moduli === 0) {
    process.exitCode = 1;
    process.stderr.write(`powprime: no moduli in ${plural(files.length, 'file')}; nothing written\n`);
    return;
  }
  writeMerge(r.text, target);
  if (target === undefined) return;
  const summary = { out: opts.out, files: files.length, lines: r.lines, moduli: r.moduli, duplicates: r.lines - r.moduli };
  process.stdout.write(
    opts.json
      ? `${JSON.stringify(summary)}\n`
      : `${r.moduli} ${r.moduli === 1 ? 'modulus' : 'moduli'} from ${plural(r.lines, 'line')} in ${plural(files.length, 'file')} (${plural(summary.duplicates, 'duplicate')}) written to ${opts.out}\n`,
  );
}

/** Writes the merge to `target` whole, or to stdout. */
function writeMerge(text: string, target: string | undefined): void {
  if (target === undefined) process.stdout.write(text);
  else writeFileAtomic(target, text, 0o644);
}

const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** Indexes missing between 0 and the highest present, per search: a shard not merged, or not finished. */
function gaps(lines: SearchLine[]): string[] {
  const out: string[] = [];
  const groups = new Map<string, number[]>();
  for (const l of lines) {
    const k = `${l.bits}-bit search with seed ${l.seed}`;
    const g = groups.get(k);
    if (g) g.push(l.index);
    else groups.set(k, [l.index]);
  }
  for (const [k, idx] of groups) {
    const lacked = lackedIndexes(idx);
    if (lacked) out.push(`the ${k} lacks ${lacked}`);
  }
  return out;
}
