/**
 * The question client's downloaded files on disk: a body and its metadata
 * (expiry, MIME type) a file, named by a hash of (id, filename), so server
 * names can neither collide once sanitized nor land on another entry's
 * metadata. Files never asked for again are swept once past the max age.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import { makeFolderSync } from '../../fs/make-folder.ts';
import type { Clock } from '../clock.ts';
import { FolderSweep } from '../http/folder-sweep.ts';
import { readJsonState } from '../http/state-file.ts';

interface FileMeta {
  expires: number;
  mimetype: string | null;
}

/** A cached file's metadata as put() writes it; anything else is set aside and the file fetched again. */
function fileMetaShape(x: unknown): string | undefined {
  const m = x as Partial<FileMeta> | null;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return 'is not an object';
  if (typeof m.expires !== 'number' || !Number.isFinite(m.expires)) return 'has no finite "expires"';
  if (m.mimetype !== null && typeof m.mimetype !== 'string') return 'has a "mimetype" that is neither a string nor null';
  return undefined;
}

export class FileCache {
  private sweep: FolderSweep | undefined;

  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
    /** No file is kept longer, whatever its response allowed. */
    readonly maxAgeMs: number,
  ) {}

  private paths(id: string, filename: string): { body: string; meta: string } {
    const key = createHash('sha256').update(`${id}\n${filename}`).digest('hex').slice(0, 32);
    return { body: path.join(this.dir, `${key}.body`), meta: path.join(this.dir, `${key}.meta.json`) };
  }

  /** The file while it is fresh, else undefined. */
  get(id: string, filename: string): { path: string; content: Buffer; mimetype: string | null } | undefined {
    const at = this.paths(id, filename);
    const m = existsSync(at.body) ? (readJsonState(at.meta, 'set-aside', fileMetaShape) as FileMeta | undefined) : undefined;
    return m && m.expires > this.clock.now() ? { path: at.body, content: readFileSync(at.body), mimetype: m.mimetype } : undefined;
  }

  /** Keeps the file for `ttlMs` (capped at the max age); its path, or null when nothing is kept (a ttl of 0). */
  put(id: string, filename: string, content: Uint8Array, mimetype: string | null, ttlMs: number): string | null {
    const ttl = Math.min(ttlMs, this.maxAgeMs);
    if (ttl <= 0) return null;
    const at = this.paths(id, filename);
    makeFolderSync(this.dir);
    writeFileAtomic(at.body, content, 0o644);
    writeFileAtomic(at.meta, JSON.stringify({ expires: this.clock.now() + ttl, mimetype }), 0o644);
    // Files never asked for again go once the max age has passed (no ttl is longer).
    this.sweep ??= new FolderSweep(this.dir, this.clock, this.maxAgeMs);
    this.sweep.maybe();
    return at.body;
  }
}
