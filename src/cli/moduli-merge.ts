/**
 * `powprime merge` of moduli files (`moduli --out`, shards, earlier runs):
 * one file sshd reads, each run's moduli keyed by (seed, size, index) from
 * their section headers (moduli-file.ts), deduplicated, re-verified, sorted
 * by size and index. A run merged whole gets a plain header, so the
 * `moduli` command that made it can resume the merged file; one with gaps
 * lists its indexes, so a later merge can still fill them.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { lackedIndexes } from './index-gaps.ts';
import { toRanges } from './index-ranges.ts';
import { tornInputWarning } from './whole-lines.ts';
import { encodeModuliLine, HEADER_START, moduliSections, readModuliFile, verifyModuli, type IndexedModulus, type ModuliHeader } from './moduli-file.ts';

/** How much of a file tells what it is. */
const SNIFF_BYTES = 64 * 1024;

/**
 * What `file` holds: moduli (ours, with header lines, or anyone's), by its
 * first line that is neither empty nor another comment being one of our
 * headers or a moduli line; 'empty' when it has no such line (it goes with
 * either kind); else 'other' (search's JSON lines, or what the merge of
 * those refuses). A moduli file without our header is then refused by the
 * merge, which says why. The caller has seen that the file is there.
 */
export function inputKind(file: string): 'moduli' | 'empty' | 'other' {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return 'other'; // the merge names an unreadable file itself
  }
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8');
    const first = text.split('\n').find((l) => l.trim() !== '' && (!l.startsWith('#') || l.startsWith(HEADER_START)));
    if (first === undefined) return 'empty';
    return first.startsWith(HEADER_START) || /^\d{14} /.test(first) ? 'moduli' : 'other';
  } finally {
    closeSync(fd);
  }
}

interface Run {
  header: ModuliHeader;
  /** By `${bits}/${index}`. */
  byKey: Map<string, IndexedModulus>;
}

export interface MergeResult {
  text: string;
  lines: number;
  moduli: number;
  warnings: string[];
  /** The seeds whose runs were merged with gaps. */
  gapped: Set<bigint>;
  /** Each run's indexes merged (of every size), by seed. */
  indexes: Map<bigint, number[]>;
}

/**
 * Merges the moduli files. `beforeVerify` sees the merge before any modulus
 * is re-verified, which takes minutes for a large file, and may throw:
 * verifying changes nothing in the text, it only refuses.
 */
export async function mergeModuli(files: string[], beforeVerify?: (merged: Omit<MergeResult, 'lines' | 'warnings'>) => void): Promise<MergeResult> {
  const runs = new Map<bigint, Run>();
  const warnings: string[] = [];
  const gapped = new Set<bigint>();
  const runIndexes = new Map<bigint, number[]>();
  let lines = 0;
  for (const file of files) {
    const existing = readModuliFile(file, 'input', '');
    const torn = tornInputWarning(file, existing);
    if (torn) warnings.push(torn);
    for (const { header, entries } of moduliSections(file, existing, 'input', '')) {
      const run = runs.get(header.seed) ?? { header, byKey: new Map() };
      runs.set(header.seed, run);
      for (const e of entries) {
        lines++;
        const key = `${e.bits}/${e.index}`;
        const seen = run.byKey.get(key);
        if (seen && seen.entry.modulus !== e.entry.modulus) {
          throw new RangeError(`conflicting moduli for index ${e.index} of the ${e.bits}-bit run with seed ${header.seed}: ${seen.where} and ${e.where} differ`);
        }
        if (!seen) run.byKey.set(key, e);
      }
    }
  }
  const out: string[] = [];
  const sorted: { all: IndexedModulus[]; header: ModuliHeader }[] = [];
  let moduli = 0;
  for (const seed of [...runs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const run = runs.get(seed)!;
    const all = [...run.byKey.values()].sort((a, b) => a.bits - b.bits || a.index - b.index);
    sorted.push({ all, header: run.header });
    runIndexes.set(
      seed,
      all.map((e) => e.index),
    );
    const indexes = new Map<number, number[]>();
    for (const e of all) {
      const xs = indexes.get(e.bits) ?? [];
      xs.push(e.index);
      indexes.set(e.bits, xs);
    }
    let whole = true;
    for (const [bits, xs] of indexes) {
      const lacked = lackedIndexes(xs);
      if (!lacked) continue;
      whole = false;
      gapped.add(seed);
      warnings.push(`the ${bits}-bit moduli of seed ${seed} lack ${lacked} (a shard not merged, or not finished)`);
    }
    out.push(encodeModuliLine({ kind: 'header', seed, stream: run.header.stream, shard: null, indexes: whole ? null : new Map([...indexes].map(([bits, xs]) => [bits, toRanges(xs)])) }));
    for (const e of all) out.push(encodeModuliLine({ kind: 'entry', entry: e.entry }));
    moduli += all.length;
  }
  const text = out.map((l) => `${l}\n`).join('');
  beforeVerify?.({ text, moduli, gapped, indexes: runIndexes });
  for (const { all, header } of sorted) await verifyModuli(all, header, '');
  return { text, lines, moduli, warnings, gapped, indexes: runIndexes };
}

/**
 * Refuses `merge … --out F` when F is a shard's file (an input, or a file
 * whose groups an input holds too, such as a copy) and the merge leaves that
 * run with gaps or with that shard's groups alone: F would be rewritten as a
 * merge, which resumes as no shard, so the shard's own `moduli --shard` run
 * could not go on in F, and the hours it would still add to it would have to
 * be run again elsewhere.
 */
export function checkShardFileKept(target: string, out: string, merged: Pick<MergeResult, 'gapped' | 'indexes'>): void {
  if (!statSync(target, { throwIfNoEntry: false })?.size) return;
  let sections: ReturnType<typeof moduliSections>;
  try {
    sections = moduliSections(target, readModuliFile(target, 'input', ''), 'input', '');
  } catch {
    return; // not a file of ours (checkNothingLost has kept its lines): it has no shard header to keep
  }
  for (const { header } of sections) {
    if (!header.shard) continue;
    const { k, n } = header.shard;
    const gaps = merged.gapped.has(header.seed);
    if (!gaps && !(merged.indexes.get(header.seed) ?? []).every((i) => i % n === k)) continue;
    const shard = `${k + 1}/${n}`;
    throw new RangeError(
      `--out ${out} is shard ${shard}'s file (seed ${header.seed}), which \`moduli --shard ${shard}\` resumes; merged ${gaps ? 'with gaps' : 'alone'} it would resume as no shard: write the merge to another file`,
    );
  }
}
