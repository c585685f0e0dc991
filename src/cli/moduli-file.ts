/**
 * Moduli files powprime writes (`moduli --out`, `merge`): moduli(5) files
 * that sshd and ssh-keygen read as they are, and that a rerun resumes and
 * merge puts together. A comment line (sshd skips comments) heads each
 * section and names its run — seed and stream, and which indexes its lines
 * are: every index in order (a whole run), those of one shard in order
 * (`shard i/n`: index i−1, i−1+n, …), or a list (`indexes 2048:0-9,12`, a
 * merge with gaps). So the k-th line of a size in a section is a known index
 * of that size, and two files holding the same index must hold the same
 * modulus. Appended whole and locked as `search --out` is (out-file.ts).
 */
import { moduliEntryProblem, formatModuliLine, parseModuliLine, type ModuliEntry } from '../moduli/format.ts';
import { MAX_SHARDS, SEED_LIMIT } from '../limits.ts';
import { isSafePrime } from '../prime/check.ts';
import { distanceFromStart, spacing, stream, type StreamVersion } from '../prime/stream.ts';
import { nthIndex, parseRanges, rangesLength, rangesText } from './index-ranges.ts';
import { readLines, type ExistingLines } from './whole-lines.ts';
import { checkEach } from './check-each.ts';

export interface ModuliHeader {
  kind: 'header';
  seed: bigint;
  stream: StreamVersion;
  /** 0-based k of n: the section's lines of a size are indexes k, k+n, …. */
  shard: { k: number; n: number } | null;
  /** The section's indexes by size, as increasing ranges [a, b], in line order (a merge with gaps). */
  indexes: Map<number, [number, number][]> | null;
}

export type ModuliFileLine = ModuliHeader | { kind: 'entry'; entry: ModuliEntry };

/** The header's start: what tells a moduli file of ours from search's JSON lines. */
export const HEADER_START = '# powprime moduli';

// Strict: every clause whole, in this order, then at most a parenthesised comment; anything else is refused, not skipped.
const HEADER = /^# powprime moduli: seed (\d+) stream (\d+)(?: shard (\d+)\/(\d+))?(?: indexes (\S+))?(?: \(.*\))?$/;
export function encodeModuliLine(l: ModuliFileLine): string {
  if (l.kind === 'entry') return formatModuliLine(l.entry);
  const shard = l.shard ? ` shard ${l.shard.k + 1}/${l.shard.n}` : '';
  const indexes = l.indexes ? ` indexes ${[...l.indexes].map(([bits, r]) => `${bits}:${rangesText(r)}`).join(';')}` : '';
  const why = l.indexes ? 'merged with gaps: powprime merge fills them from the missing shards' : 'powprime merge and resume read this line';
  return `# powprime moduli: seed ${l.seed} stream ${l.stream}${shard}${indexes} (OpenSSH moduli(5); ${why})`;
}

/** The lines of a moduli file powprime wrote; `flag` names the file in messages (--out, input). */
export function readModuliFile(file: string, flag: string, refusal: string): ExistingLines<ModuliFileLine> {
  return readLines<ModuliFileLine>(file, flag, (text, lineNo) => {
    const refuse = (why: string): never => {
      throw new RangeError(`${flag === 'input' ? '' : `${flag} file `}${file} line ${lineNo} ${why}${refusal}`);
    };
    // A copy gone through a Windows editor: said so, rather than each line called malformed.
    if (text.endsWith('\r')) return refuse('ends in CR (a Windows line ending): convert the file back (dos2unix) first');
    if (text.startsWith(HEADER_START)) {
      const h = HEADER.exec(text);
      if (!h) return refuse('is not a powprime moduli header line');
      if (h[2] !== '2') refuse(`names stream ${h[2]}, which moduli do not use`);
      if (BigInt(h[1]!) >= SEED_LIMIT) refuse('names a seed of 2^256 or more, which no run has');
      const shard = h[3] === undefined ? null : { k: Number(h[3]) - 1, n: Number(h[4]) };
      if (shard && (shard.n < 1 || shard.n > MAX_SHARDS || shard.k < 0 || shard.k >= shard.n)) refuse(`names shard ${h[3]}/${h[4]}, which does not exist (at most ${MAX_SHARDS} shards)`);
      let indexes: Map<number, [number, number][]> | null = null;
      if (h[5] !== undefined) {
        if (shard) refuse('names both a shard and a list of indexes');
        indexes = new Map();
        for (const part of h[5].split(';')) {
          const m = /^(\d+):(.+)$/.exec(part);
          const ranges = m ? parseRanges(m[2]!) : null;
          if (!m || !ranges || indexes.has(Number(m[1]))) return refuse(`lists indexes that are not increasing ranges by size (${part})`);
          indexes.set(Number(m[1]), ranges);
        }
      }
      return { kind: 'header', seed: BigInt(h[1]!), stream: 2, shard, indexes };
    }
    const parsed = parseModuliLine(text);
    if (parsed === null) return null;
    if ('reason' in parsed) return refuse(`is not a moduli line: ${parsed.reason}`);
    const problem = moduliEntryProblem(parsed);
    if (problem) refuse(`is not a group sshd would use: ${problem}`);
    // sshd reads fields split by single spaces and nothing after the modulus: a line edited to anything but what we write may not be read.
    if (formatModuliLine(parsed) !== text) refuse('is not written as powprime writes a group (one space between fields, upper-case hex, no leading zeros): it was edited');
    return { kind: 'entry', entry: parsed };
  });
}

/** A moduli line and the search index it stands for. */
export interface IndexedModulus {
  entry: ModuliEntry;
  bits: number;
  index: number;
  /** "FILE line N". */
  where: string;
}

export interface ModuliSection {
  header: ModuliHeader;
  entries: IndexedModulus[];
}

/** The file's sections, each line's index worked out from its header; refuses lines no header names. */
export function moduliSections(file: string, existing: ExistingLines<ModuliFileLine>, flag: string, refusal: string): ModuliSection[] {
  const sections: ModuliSection[] = [];
  const { lines, lineNos } = existing;
  const name = `${flag === 'input' ? '' : `${flag} file `}${file}`;
  let seen = new Map<number, number>();
  lines.forEach((l, i) => {
    const where = `${name} line ${lineNos[i]}`;
    if (l.kind === 'header') {
      sections.push({ header: l, entries: [] });
      seen = new Map();
      return;
    }
    const section = sections[sections.length - 1];
    if (!section) {
      throw new RangeError(
        `${name} holds moduli before any powprime header line (line ${lineNos[i]}), so their seed is unknown${refusal} (to add groups to such a file, write them to a new one and append its lines: docs/moduli.md)`,
      );
    }
    const bits = l.entry.size + 1;
    const k = seen.get(bits) ?? 0;
    seen.set(bits, k + 1);
    const { shard, indexes } = section.header;
    let index = shard ? shard.k + k * shard.n : k;
    if (indexes) {
      const listed = indexes.get(bits);
      const at = listed ? nthIndex(listed, k) : null;
      if (at === null) throw new RangeError(`${where} is ${bits}-bit modulus number ${k + 1} of its section, and its header lists ${listed ? rangesLength(listed) : 0}${refusal}`);
      index = at;
    }
    if (!Number.isSafeInteger(index)) throw new RangeError(`${where} would be index ${index} of its run, past any search${refusal}`);
    section.entries.push({ entry: l.entry, bits, index, where });
  });
  return sections;
}

/**
 * Checks that every modulus is its run's group of its index (it lies within
 * the index's share of the stream: a line moved, or copied from another
 * file or run, does not) and a safe prime; the line's form and generator were
 * checked on reading. The first bad line in `entries`' order is thrown.
 */
export async function verifyModuli(entries: IndexedModulus[], header: ModuliHeader, suffix: string): Promise<void> {
  for (const e of entries) {
    const st = stream(e.bits, header.seed, BigInt(e.index), 2);
    const distance = distanceFromStart(st, e.entry.modulus);
    if (distance === null || distance >= spacing(e.bits)) {
      throw new RangeError(`${e.where}: not group ${e.index} of the ${e.bits}-bit run with seed ${header.seed} (a line moved, or from another file or run)${suffix}`);
    }
  }
  const safe = await checkEach(entries, (e) => isSafePrime(e.entry.modulus), 'verifying');
  const bad = safe.indexOf(false);
  if (bad >= 0) throw new RangeError(`${entries[bad]!.where}: the modulus or (modulus-1)/2 is not prime${suffix}`);
}
