/**
 * `search --shard`: which share of a search this process runs, given as i/n
 * or read from the scheduler that launched it. Shard i of n (1-based) runs
 * the indexes ≡ i−1 (mod n), so n shards together run every index once.
 */
import { MAX_SHARDS } from '../limits.ts';

export interface Shard {
  /** 0-based: this shard runs indexes ≡ k (mod n). */
  k: number;
  n: number;
  /** Where the numbers came from, for the user. */
  source: string;
}

function int(name: string, text: string | undefined, min: number): number {
  if (text === undefined || !/^\d+$/.test(text.trim())) throw new RangeError(`${name} must be a whole number (got ${JSON.stringify(text ?? '')})`);
  const v = Number(text.trim());
  if (v < min || v > MAX_SHARDS) throw new RangeError(`${name} must be from ${min} to ${MAX_SHARDS} (got ${v})`);
  return v;
}

/**
 * `i/n`, or `auto`: Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX, 0-based,
 * with --shard-count), Slurm job arrays (SLURM_ARRAY_TASK_ID minus
 * SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT), GNU parallel
 * (PARALLEL_SEQ, 1-based, with --shard-count).
 */
export function parseShard(spec: string, countText: string | undefined, env: NodeJS.ProcessEnv = process.env): Shard {
  const count = countText === undefined ? undefined : int('--shard-count', countText, 1);
  const check = (s: Shard): Shard => {
    if (s.k >= s.n) throw new RangeError(`--shard: shard ${s.k + 1} of ${s.n} does not exist (from ${s.source})`);
    return s;
  };
  if (spec !== 'auto') {
    const m = /^(\d+)\/(\d+)$/.exec(spec);
    if (!m) throw new RangeError(`--shard must be i/n (1 ≤ i ≤ n), e.g. 2/3, or auto (got ${JSON.stringify(spec)})`);
    return check({ k: int('--shard i', m[1], 1) - 1, n: int('--shard n', m[2], 1), source: `--shard ${spec}` });
  }
  const needCount = (what: string): number => {
    if (count === undefined) throw new RangeError(`--shard auto found ${what} but no shard count: add --shard-count N`);
    return count;
  };
  if (env.JOB_COMPLETION_INDEX !== undefined) {
    return check({ k: int('JOB_COMPLETION_INDEX', env.JOB_COMPLETION_INDEX, 0), n: needCount('JOB_COMPLETION_INDEX'), source: 'JOB_COMPLETION_INDEX' });
  }
  if (env.SLURM_ARRAY_TASK_ID !== undefined) {
    const id = int('SLURM_ARRAY_TASK_ID', env.SLURM_ARRAY_TASK_ID, 0);
    const min = env.SLURM_ARRAY_TASK_MIN === undefined ? 0 : int('SLURM_ARRAY_TASK_MIN', env.SLURM_ARRAY_TASK_MIN, 0);
    if (count === undefined && env.SLURM_ARRAY_TASK_COUNT === undefined) {
      throw new RangeError('--shard auto found SLURM_ARRAY_TASK_ID but no SLURM_ARRAY_TASK_COUNT (Slurm sets it for job arrays): add --shard-count N');
    }
    const n = count ?? int('SLURM_ARRAY_TASK_COUNT', env.SLURM_ARRAY_TASK_COUNT, 1);
    if (id < min) throw new RangeError(`--shard auto: SLURM_ARRAY_TASK_ID ${id} is below SLURM_ARRAY_TASK_MIN ${min}`);
    return check({ k: id - min, n, source: 'SLURM_ARRAY_TASK_ID' });
  }
  if (env.PARALLEL_SEQ !== undefined) {
    return check({ k: int('PARALLEL_SEQ', env.PARALLEL_SEQ, 1) - 1, n: needCount('PARALLEL_SEQ'), source: 'PARALLEL_SEQ' });
  }
  throw new RangeError('--shard auto found no scheduler variable (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, PARALLEL_SEQ); give --shard i/n');
}

/** How many of the indexes 0 … total−1 fall to shard k of n. */
export function shardSize(s: Shard, total: number): number {
  return s.k >= total ? 0 : Math.ceil((total - s.k) / s.n);
}

/**
 * What a shard with none of the indexes says, on stderr even off a terminal:
 * a scheduler's log should show why the run did nothing (more shards than
 * --count, say 10 Indexed Jobs for 8 moduli).
 */
export function emptyShardNotice(s: Shard, count: number, ofEach = ''): string {
  const from = s.source.startsWith('--shard') ? '' : ` (${s.source})`;
  return `powprime: shard ${s.k + 1} of ${s.n}${from} has no index: --count ${count}${ofEach} gives work to ${count === 1 ? 'shard 1' : `the first ${count} shards`} only; nothing to do\n`;
}
