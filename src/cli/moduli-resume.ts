/**
 * `moduli --out` resumed: the file's one run checked against this one's
 * flags, and every group it holds verified, before anything is appended
 * (the moduli counterpart of search-resume.ts).
 */
import { OutFile } from './out-file.ts';
import { encodeModuliLine, moduliSections, readModuliFile, verifyModuli, type ModuliFileLine } from './moduli-file.ts';
import type { Shard } from './shard.ts';

export interface ResumedModuli {
  /** The --out file, locked; null without --out. */
  out: OutFile<ModuliFileLine> | null;
  /** The file's seed, else --seed (undefined when neither gives one). */
  seed: bigint | undefined;
  /** Lines already in the file, by size in bits. */
  done: Map<number, number>;
  /** Whether the file still needs its header line. */
  needsHeader: boolean;
}

const RESUME_REFUSAL = '; refusing to append to it';

/**
 * Opens --out and checks that it continues this run: one section, its seed,
 * its shard, only sizes of --bits, and every modulus a safe prime of its size
 * with the generator ssh-keygen's rule gives. Refuses (RangeError) a file
 * that does not, and a shard with no seed from the file or --seed.
 */
export async function resumeModuli(file: string | undefined, f: ResumeFlags): Promise<ResumedModuli> {
  const resumed = await openResumed(file, f);
  if (f.shard && resumed.seed === undefined) {
    resumed.out?.close();
    throw new RangeError('--shard needs --seed: every shard must search the same run');
  }
  return resumed;
}

interface ResumeFlags {
  sizes: number[];
  seed: bigint | undefined;
  shard: Shard | null;
}

async function openResumed(file: string | undefined, f: ResumeFlags): Promise<ResumedModuli> {
  if (file === undefined) return { out: null, seed: f.seed, done: new Map(), needsHeader: false };
  const out = OutFile.open(file, (name) => readModuliFile(name, '--out', RESUME_REFUSAL), '--out', encodeModuliLine);
  try {
    const sections = moduliSections(file, out.existing, '--out', RESUME_REFUSAL);
    if (sections.length > 1) throw new RangeError(`--out file ${file} holds ${sections.length} runs (a merge); resume one run's own file, or use another file`);
    const header = sections[0]?.header;
    const entries = sections[0]?.entries ?? [];
    if (header?.indexes) throw new RangeError(`--out file ${file} is a merge with gaps; merge the missing shards into it, or use another file`);
    if (header && f.seed !== undefined && header.seed !== f.seed) throw new RangeError(`--out file ${file} was written with seed ${header.seed}, not ${f.seed}; use another file`);
    const shardOf = (s: { k: number; n: number } | null | undefined): string => (s ? `shard ${s.k + 1}/${s.n}` : 'no shard');
    if (header && shardOf(header.shard) !== shardOf(f.shard)) throw new RangeError(`--out file ${file} holds ${shardOf(header.shard)}, and this run is ${shardOf(f.shard)}; use another file`);
    const done = new Map<number, number>();
    const foreign = entries.find((e) => !f.sizes.includes(e.bits));
    if (foreign) {
      // The fix is most often to name the file's sizes too: its own lines count as done.
      const sizes = [...new Set([...entries.map((e) => e.bits).filter((b) => !f.sizes.includes(b)), ...f.sizes])];
      throw new RangeError(`${foreign.where} holds a ${foreign.bits}-bit modulus, and --bits is ${f.sizes.join(',')}; add its sizes (--bits ${sizes.join(',')}) to go on with it, or use another file`);
    }
    for (const e of entries) done.set(e.bits, (done.get(e.bits) ?? 0) + 1);
    // Every modulus it continues from is checked: safe, as sshd and ssh-keygen will assume.
    if (header) await verifyModuli(entries, header, ' (refusing to resume from it)');
    // The file is this run's: a torn last line goes now, even if no group is left to add.
    out.cutTornTail();
    return { out, seed: header?.seed ?? f.seed, done, needsHeader: !header };
  } catch (err) {
    out.close();
    throw err;
  }
}
