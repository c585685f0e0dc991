/**
 * `search --out`: the file's lines fix the seed and the next index, so
 * rerunning the same command resumes where the file ends.
 */
import { parseBits } from '../prime/search-options.ts';
import { readExisting, type ExistingRun, type SearchLine } from './jsonl-file.ts';
import { OutFile } from './out-file.ts';
import type { SearchFlags } from './search-flags.ts';
import type { StreamVersion } from '../prime/stream.ts';
import { checkLineFields, lineStream, verifyLines } from './verify-lines.ts';

export interface Resumed {
  /** The --out file, locked; null without --out. */
  outFile: OutFile<SearchLine> | null;
  /** The lines earlier runs wrote (none without --out). */
  existing: ExistingRun;
  /** The file's seed, else --seed (undefined when neither gives one). */
  seed: bigint | undefined;
  /** The file's stream version, else --stream (undefined when neither gives one). */
  stream: StreamVersion | undefined;
  /** --bits, else the file's. */
  bits: number;
}

/**
 * Opens --out and checks that its lines continue this run: the same bits and
 * seed (each taken from the file when not given), the indexes this process (or shard) runs, every prime of its bit
 * length, of its index (stream 2) and safe. Refuses (RangeError) a file that does not.
 */
export async function resumeOut(out: string | undefined, f: Pick<SearchFlags, 'bits' | 'seed' | 'stream' | 'base' | 'stride' | 'shard'>): Promise<Resumed> {
  const { base, stride, shard } = f;
  let bits = f.bits;
  let seed = f.seed;
  let stream = f.stream;
  // The file is locked first: another run appending to it (or registering its
  // primes) must not be read half-way, nor raced.
  const outFile = out !== undefined ? OutFile.open(out, readExisting) : null;
  const existing = outFile?.existing ?? { lines: [], lineNos: [], validBytes: 0, totalBytes: 0 };
  if (existing.lines.length) {
    const where = (i: number): string => `--out file ${out} line ${existing.lineNos[i]}`;
    const refuse = ' (refusing to resume from it)';
    const first = existing.lines[0]!;
    try {
      checkLineFields({ line: first, where: where(0) });
    } catch (err) {
      throw new RangeError(`${(err as Error).message}${refuse}`);
    }
    const fileSeed = BigInt(first.seed);
    if (bits === undefined) bits = parseBits(`--out file ${out}'s "bits"`, first.bits);
    if (first.bits !== bits) throw new RangeError(`--out file holds ${first.bits}-bit primes, not ${bits}-bit; use another file`);
    if (seed !== undefined && seed !== fileSeed) throw new RangeError(`--out file was written with seed ${fileSeed}, not ${seed}; use another file`);
    seed = fileSeed;
    // One file, one stream: its first line's version is the run's.
    const fileStream = lineStream(first);
    if (stream !== undefined && stream !== fileStream) throw new RangeError(`--out file was written with stream ${fileStream}, not ${stream}; use another file`);
    stream = fileStream;
    existing.lines.forEach((l, i) => {
      if (lineStream(l) !== fileStream) throw new RangeError(`${where(i)} is of stream ${lineStream(l)}, but line ${existing.lineNos[0]} is of stream ${fileStream}: a file holds one stream${refuse}`);
    });
    existing.lines.forEach((l, i) => {
      if (l.bits !== bits || l.seed !== first.seed || l.index !== base + i * stride) {
        throw new RangeError(
          `${where(i)} does not continue this ${shard ? `shard's ` : ''}run (bits ${l.bits}, seed ${JSON.stringify(l.seed)}, index ${l.index}; expected index ${base + i * stride})`,
        );
      }
    });
    // Every prime it continues from (and may register) is checked: of its bit length, of its index, and safe.
    await verifyLines(
      existing.lines.map((line, i) => ({ line, where: where(i) })),
      refuse,
    );
  }
  if (bits === undefined) {
    outFile?.close();
    throw new RangeError(`--bits is required: --out file ${out} has no primes to take it from`);
  }
  // The file is this run's: a torn last line goes now, even if no prime is left to add.
  outFile?.cutTornTail();
  return { outFile, existing, seed, stream, bits };
}
