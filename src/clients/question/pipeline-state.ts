/**
 * What a question pipeline has asked, answered and dropped: five lists kept in
 * one JSON file and rewritten whole (atomically) at every change, so a crash
 * or kill -9 loses nothing, and the lock that keeps one pipeline on the file.
 *
 * Prompts are keyed by a hash of their text, so an edited prompt is a new
 * one. Answers stay in the file once delivered, so a new output can be given
 * every answer known.
 *
 * Each pipeline works from its own copy of the lists, so two on one file would
 * post every prompt twice (the service allows 16 a day): the file's lock is
 * held from the pipeline's constructor until run() ends (or close()), and
 * another pipeline on the file is refused at once.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { FileLockedError } from '../../errors.ts';
import { tryLock, type FileLock } from '../../fs/file-lock.ts';
import { lockHolderText } from '../../fs/lock-note.ts';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import { readJsonState } from '../http/state-file.ts';
import type { QuestionClient } from './client.ts';
import { LISTS, type Lists, type PromptItem, stateShape } from './pipeline-items.ts';
import { makeFolderSync } from '../../fs/make-folder.ts';
import { DEFAULT_FIRST_CHECK_MS } from './pipeline-timing.ts';
import { checkString } from '../../validate.ts';

/** The key of a prompt: a hash of its text (public: a caller matches answers to its prompts by it). */
export function promptKey(prompt: string): string {
  return createHash('sha256').update(checkString('prompt', prompt)).digest('hex').slice(0, 16);
}

/**
 * The file a pipeline keeps its queues in: `pipeline-<host>.json` in `stateDir`, per the client's
 * host; for the client's default host, a `pipeline.json` of an earlier version while that does not exist.
 */
export function pipelineFile(client: QuestionClient, stateDir: string): string {
  return client.hostFile('pipeline.json', { legacy: true, dir: stateDir });
}

export class PipelineState {
  /** Replaced as a whole when the file is read; changed in place by the pipeline's actions, then save(). */
  lists: Lists = { prompts: [], awaiting: [], delivering: [], answered: [], dropped: [] };
  private lock: FileLock | null = null;

  /** `firstCheckMs` is the running pipeline's: see load(). */
  constructor(
    readonly file: string,
    private readonly firstCheckMs: number,
  ) {}

  /**
   * Takes the state file's lock (beside it, named like it with .lock) and reads
   * the state, unless held already. After a release the state is read again:
   * another pipeline may have run on it meanwhile. Throws FileLockedError
   * when another holder has it.
   */
  hold(): void {
    if (this.lock) return;
    makeFolderSync(path.dirname(this.file), 0o700);
    const lockFile = this.file.replace(/\.json$/, '.lock');
    this.lock = tryLock(lockFile, this.file);
    if (!this.lock) throw new FileLockedError(this.file, lockHolderText(lockFile), false);
    try {
      this.load();
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** Lets go of the lock; a second call does nothing. */
  close(): void {
    this.lock?.release();
    this.lock = null;
  }

  private load(): void {
    const saved = readJsonState(this.file, 'set-aside', stateShape) as Partial<Lists> | undefined;
    if (!saved) return;
    this.lists = { prompts: [], awaiting: [], delivering: [], answered: [], dropped: [], ...saved };
    for (const p of this.lists.prompts) {
      if (p.posting) {
        p.posting = false;
        p.lastError = 'interrupted while posting; posted again (the question may appear twice)';
      }
    }
    for (const a of this.lists.awaiting) {
      // Saved before checks were counted: a question never checked has its first check at most the
      // default firstCheckAfterMs after posting, and one checked since is past that by at least
      // MIN_CHECK_INTERVAL_MS (unless its first check came sooner, when at worst one check moves).
      a.checks ??= a.failures === 0 && a.notBefore - a.postedAt <= DEFAULT_FIRST_CHECK_MS ? 0 : 1;
      // A question not checked yet is first checked firstCheckAfterMs after posting as this pipeline
      // has it: a rerun with another first check applies it to the questions posted before.
      if (a.checks === 0) a.notBefore = a.postedAt + this.firstCheckMs;
    }
  }

  /** Writes the lists as they stand; whatever the pipeline does next is done only after this. */
  save(): void {
    writeFileAtomic(this.file, JSON.stringify(this.lists));
  }

  /** Every item of every list (answered ones may lack their prompt). */
  all(): { key: string; prompt?: string }[] {
    return LISTS.flatMap((name) => this.lists[name] as { key: string; prompt?: string }[]);
  }

  /** Queues a prompt under `key` unless the key is known in any list; saved before returning. */
  enqueue(prompt: string, key: string): void {
    this.hold();
    const known = this.all().some((i) => i.key === key);
    if (!known) {
      this.lists.prompts.push({ key, prompt, failures: 0, notBefore: 0 });
      this.save();
    }
  }

  /** See QuestionPipeline.adoptKey. */
  adoptKey(formerKey: string, prompt: string, key: string): void {
    this.hold();
    let changed = false;
    for (const i of this.all()) {
      if (i.key !== formerKey || (i.prompt !== undefined && i.prompt !== prompt)) continue;
      i.key = key;
      i.prompt ??= prompt;
      changed = true;
    }
    if (changed) this.save();
  }

  /** See QuestionPipeline.withdraw. */
  withdraw(keep: ReadonlySet<string>): PromptItem[] {
    this.hold();
    const gone = this.lists.prompts.filter((p) => !p.posting && !keep.has(p.key));
    if (gone.length) {
      this.lists.prompts = this.lists.prompts.filter((p) => !gone.includes(p));
      this.save();
    }
    return gone;
  }
}
