/**
 * `moduli --out`: a moduli(5) file that sshd and ssh-keygen read as it is,
 * and that a rerun of the same command resumes. Its first line is a comment
 * naming the seed and stream (sshd skips comments); each size's lines follow
 * in index order, so the k-th line of a size is index k of that size (of
 * this shard: base + k·stride). Appended whole and locked as `search --out`
 * is (jsonl-file.ts).
 */
import { moduliEntryProblem, formatModuliLine, parseModuliLine, type ModuliEntry } from '../moduli/format.ts';
import type { StreamVersion } from '../prime/stream.ts';
import { JsonlOut, readLines, type ExistingLines } from './jsonl-file.ts';
import { verifyLines } from './verify-lines.ts';

export type ModuliFileLine = { kind: 'header'; seed: bigint; stream: StreamVersion } | { kind: 'entry'; entry: ModuliEntry };

const HEADER = /^# powprime moduli: seed (\d+) stream (\d+)\b/;

function encode(l: ModuliFileLine): string {
  return l.kind === 'header' ? `# powprime moduli: seed ${l.seed} stream ${l.stream} (OpenSSH moduli(5); rerun the same powprime moduli command to resume)` : formatModuliLine(l.entry);
}

function readModuliOut(file: string): ExistingLines<ModuliFileLine> {
  return readLines<ModuliFileLine>(file, '--out', (text, lineNo) => {
    const refuse = (why: string): never => {
      throw new RangeError(`--out file ${file} line ${lineNo} ${why}; refusing to append to it`);
    };
    const header = HEADER.exec(text);
    if (header) {
      if (header[2] !== '2') refuse(`names stream ${header[2]}, which moduli do not use`);
      return { kind: 'header', seed: BigInt(header[1]!), stream: 2 };
    }
    const parsed = parseModuliLine(text);
    if (parsed === null) return null;
    if ('reason' in parsed) return refuse(`is not a moduli line: ${parsed.reason}`);
    const problem = moduliEntryProblem(parsed);
    if (problem) refuse(`is not a group sshd would use: ${problem}`);
    return { kind: 'entry', entry: parsed };
  });
}

export interface ResumedModuli {
  /** The --out file, locked; null without --out. */
  out: JsonlOut<ModuliFileLine> | null;
  /** The file's seed, else --seed (undefined when neither gives one). */
  seed: bigint | undefined;
  /** Lines already in the file, by size in bits. */
  done: Map<number, number>;
  /** Whether the file still needs its header line. */
  needsHeader: boolean;
}

/**
 * Opens --out and checks that it continues this run: its header's seed, only
 * sizes of --bits, and every modulus a safe prime of its size with the
 * generator ssh-keygen's rule gives. Refuses (RangeError) a file that does not.
 */
export async function resumeModuli(file: string | undefined, f: { sizes: number[]; seed: bigint | undefined; base: number; stride: number }): Promise<ResumedModuli> {
  if (file === undefined) return { out: null, seed: f.seed, done: new Map(), needsHeader: false };
  const out = JsonlOut.open(file, readModuliOut, '--out', encode);
  try {
    const { lines, lineNos } = out.existing;
    const header = lines.find((l) => l.kind === 'header');
    const entries = lines.flatMap((l, i) => (l.kind === 'entry' ? [{ entry: l.entry, lineNo: lineNos[i]! }] : []));
    if (entries.length && !header) throw new RangeError(`--out file ${file} holds moduli but no powprime header line, so its seed is unknown; use another file`);
    if (header && f.seed !== undefined && header.seed !== f.seed) throw new RangeError(`--out file was written with seed ${header.seed}, not ${f.seed}; use another file`);
    const done = new Map<number, number>();
    const located = entries.map(({ entry, lineNo }) => {
      const bits = entry.size + 1;
      if (!f.sizes.includes(bits)) throw new RangeError(`--out file ${file} line ${lineNo} holds a ${bits}-bit modulus, and --bits is ${f.sizes.join(',')}; use another file`);
      const k = done.get(bits) ?? 0;
      done.set(bits, k + 1);
      const where = `--out file ${file} line ${lineNo}`;
      return { line: { prime: entry.modulus.toString(), bits, seed: String(header!.seed), index: f.base + k * f.stride, elapsedMs: 0, stream: 2 }, where };
    });
    // Every modulus it continues from is checked: safe, as sshd and ssh-keygen will assume.
    await verifyLines(located, ' (refusing to resume from it)');
    return { out, seed: header?.seed ?? f.seed, done, needsHeader: !header };
  } catch (err) {
    out.close();
    throw err;
  }
}
