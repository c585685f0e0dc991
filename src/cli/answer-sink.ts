/**
 * Where `question run` delivers answers, idempotently (the pipeline delivers
 * again whatever a crash interrupted): each attached file is fetched and
 * written atomically unless it is already there, then the answer's line is
 * appended and synced unless a line with its key (or its question's id) is
 * already in the file. A new file is first given the answers delivered
 * before to the prompts it is for (backfill), so each output holds them all.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { sanitizeFilename } from '../clients/http/file-names.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import type { QuestionClient } from '../clients/question/client.ts';
import { threadJson, type ThreadItem } from '../clients/question/threads.ts';
import type { AnsweredItem, Deliver } from '../clients/question/pipeline.ts';
import { readJsonl } from './jsonl-file.ts';
import { OutFile } from './out-file.ts';
import { makeFolderSync } from '../fs/make-folder.ts';

/** A line of the output: the thread as powprime's JSON gives it (`time` an ISO 8601 instant). */
export type AnswerLine = ReturnType<typeof threadJson<ThreadItem>> & {
  key: string;
  /** Files that could not be fetched after every retry, with why. */
  missingFiles?: { filename: string; reason: string }[];
};

const isAnswerLine = (x: unknown): x is AnswerLine => typeof x === 'object' && x !== null && typeof (x as { key?: unknown }).key === 'string';

export class AnswerSink {
  private readonly written = new Set<string>();
  /** Question ids with a line in the file: a line written under an older key still counts. */
  private readonly writtenIds = new Set<string>();
  private readonly out: OutFile<AnswerLine> | null;

  constructor(
    private readonly client: QuestionClient,
    private readonly filesDir: string,
    outFile?: string,
  ) {
    if (outFile === undefined) {
      this.out = null;
      return;
    }
    // Locked before it is read: two runs on one --out would each deliver every answer.
    this.out = OutFile.open(outFile, (f) => readJsonl(f, isAnswerLine, 'an answer'));
    for (const l of this.out.existing.lines) {
      this.written.add(l.key);
      if (typeof l.id === 'string') this.writtenIds.add(l.id);
    }
  }

  readonly deliver: Deliver = async ({ key, thread, lastAttempt }) => {
    const missing: { filename: string; reason: string }[] = [];
    const dir = path.join(this.filesDir, sanitizeFilename(thread.id));
    for (const f of thread.files ?? []) {
      const target = path.join(dir, sanitizeFilename(f.filename));
      if (existsSync(target)) continue; // written whole by an earlier attempt
      try {
        const got = await this.client.file(thread.id, f.filename);
        makeFolderSync(dir);
        writeFileAtomic(target, got.content, 0o644);
      } catch (err) {
        // Retried with backoff by the pipeline; on the last attempt the answer goes out without it, saying so.
        if (!lastAttempt) throw err;
        missing.push({ filename: f.filename, reason: (err as Error).message });
      }
    }
    if (this.has(key, thread.id)) return;
    this.write({ key, ...threadJson(thread), ...(missing.length ? { missingFiles: missing } : {}) });
  };

  /** Answers in the output (lines read from the file and written since). */
  get count(): number {
    return this.written.size;
  }

  private has(key: string, id: string): boolean {
    return this.written.has(key) || this.writtenIds.has(id);
  }

  private write(line: AnswerLine): void {
    if (this.out) this.out.append(line);
    else process.stdout.write(`${JSON.stringify(line)}\n`);
    this.written.add(line.key);
    this.writtenIds.add(line.id);
  }

  /**
   * Writes the answers delivered by earlier runs that this output lacks (no
   * request: they are kept in the pipeline's state, files already saved
   * then). Entries saved before answers were kept cannot be written; they are
   * counted as unavailable.
   */
  backfill(answered: readonly AnsweredItem[]): { written: number; unavailable: number } {
    let written = 0;
    let unavailable = 0;
    for (const a of answered) {
      if (this.has(a.key, a.id)) continue;
      if (!a.thread) {
        unavailable++;
        continue;
      }
      this.write({ key: a.key, ...threadJson(a.thread) });
      written++;
    }
    return { written, unavailable };
  }

  close(): void {
    this.out?.close();
  }
}
