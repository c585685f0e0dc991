/**
 * The question service's records as the client returns them (threads,
 * per-item errors, file listings, stats, a delivered file), the checks of
 * what the service sent for them (a ProtocolError naming the route when a
 * field is missing or of the wrong type), and a thread as powprime's own
 * JSON writes it.
 */
import type { Attribution } from './attribution.ts';
import type { Bytes } from '../bytes.ts';
import { isoTime } from '../clock.ts';
import { checkArray, checkObject } from '../http/shapes.ts';

interface FileDescriptor {
  filename: string;
  mimetype: string;
  size: number;
}

export interface Thread {
  question: string;
  /** Markdown, written by a person. */
  answer: string;
  answeree: string;
  /** UNIX seconds. */
  time: number;
  files?: FileDescriptor[];
  attribution: Attribution;
}

export interface ThreadItem extends Thread {
  id: string;
}

export interface ItemError {
  error: string;
  id?: string;
}

export interface FileListing extends FileDescriptor {
  question: string;
}

export interface Stats {
  count: number;
  files: number;
  pages: number;
}

export interface DeliveredFile {
  id: string;
  filename: string;
  /** Where it is cached on disk; null when the route's headers forbid keeping it (no-store, max-age=0). */
  path: string | null;
  content: Bytes;
  mimetype: string | null;
  fromCache: boolean;
  attribution: Attribution;
}

/**
 * A thread as powprime's JSON gives it (`--json`, the lines `question run`
 * writes): the service's UNIX-seconds `time` as an ISO 8601 instant, like
 * every instant in powprime's JSON; the rest as the service sent it.
 */
export function threadJson<T extends Thread>(t: T): Omit<T, 'time'> & { time: string } {
  return { ...t, time: isoTime(t.time * 1000) };
}

/** A thread the service sent (the answer route's, without an id), credited with `attribution`. */
export function checkThread(route: string, v: unknown, attribution: Attribution): Thread {
  const o = checkObject(route, v, { question: 'string', answer: 'string', answeree: 'string', time: 'number' });
  const t: Thread = { question: o.question as string, answer: o.answer as string, answeree: o.answeree as string, time: o.time as number, attribution };
  if (o.files !== undefined) {
    t.files = checkArray(route, o.files).map((f) => {
      const d = checkObject(route, f, { filename: 'string', mimetype: 'string', size: 'integer' });
      return { filename: d.filename as string, mimetype: d.mimetype as string, size: d.size as number };
    });
  }
  return t;
}

/** A list of threads with their ids, or per-item errors (the answers and page routes). */
export function checkItems(route: string, v: unknown, attribution: Attribution): (ThreadItem | ItemError)[] {
  return checkArray(route, v).map((x) => {
    const o = x as Record<string, unknown>;
    if (o && typeof o === 'object' && typeof o.error === 'string') {
      return typeof o.id === 'string' ? { error: o.error, id: o.id } : { error: o.error };
    }
    const thread = checkThread(route, x, attribution);
    return { id: checkObject(route, x, { id: 'string' }).id as string, ...thread };
  });
}

export function checkFileListings(route: string, v: unknown): FileListing[] {
  return checkArray(route, v).map((f) => {
    const d = checkObject(route, f, { filename: 'string', mimetype: 'string', size: 'integer', question: 'string' });
    return { filename: d.filename as string, mimetype: d.mimetype as string, size: d.size as number, question: d.question as string };
  });
}

export function checkStats(route: string, v: unknown): Stats {
  const o = checkObject(route, v, { count: 'integer', files: 'integer', pages: 'integer' });
  return { count: o.count as number, files: o.files as number, pages: o.pages as number };
}
