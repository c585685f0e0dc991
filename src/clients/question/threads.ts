/**
 * The question service's records as the client returns them (threads,
 * per-item errors, file listings, stats, a delivered file), and a thread as
 * powprime's own JSON writes it.
 */
import type { Attribution } from './attribution.ts';
import type { Bytes } from '../bytes.ts';
import { isoTime } from '../clock.ts';

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
