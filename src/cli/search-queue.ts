/**
 * `search --queue`: chunk jobs go to `powprime worker` processes through
 * Redis and primes come back in index order. BullMQ (an optional peer) is
 * loaded only here, and only then.
 */
import type { StreamVersion } from '../prime/stream.ts';
import type { SettledIndex } from '../queue/chunk-plan.ts';
import type { QueueTarget } from '../queue/connection.ts';
import type { RegistrationQueue } from '../queue/registration.ts';
import { formatRate } from './args.ts';
import type { Registering } from './search-register.ts';
import type { SearchProgress } from './search-progress.ts';

export interface QueueSearch {
  target: QueueTarget;
  bits: number;
  seed: bigint;
  stream: StreamVersion;
  startIndex: number;
  stride: number;
  remaining: number;
  chunkLength: bigint | undefined;
  registerRate: { max: number; ms: number } | null;
  registering: Registering | null;
  signal: AbortSignal;
  progress: SearchProgress;
  /** Keeps one prime; with --register, `registrations` takes its registration. */
  emit: (r: SettledIndex, registrations: RegistrationQueue | null) => Promise<void>;
}

/** Runs the search on the queue until every prime is in and registered, or the signal aborts. */
export async function searchOnQueue(o: QueueSearch): Promise<void> {
  const { target, bits, seed, stream, startIndex, stride, remaining, chunkLength, registerRate, registering, progress } = o;
  let registrations: RegistrationQueue | null = null;
  try {
    // Primes are registered through a queue of their own: one registration at a time across every process on it.
    if (registering) {
      registrations = await (await import('../queue/registration.ts')).RegistrationQueue.open({
        target,
        register: (p) => registering.register(p),
        ...(registerRate ? { rate: registerRate } : {}),
        signal: o.signal,
        onNotice: progress.notice,
      });
    }
    const { coordinate } = await import('../queue/coordinator.ts');
    await coordinate({
      target,
      bits,
      seed,
      stream,
      startIndex: BigInt(startIndex),
      stride: BigInt(stride),
      count: BigInt(remaining),
      ...(chunkLength !== undefined ? { chunkLength } : {}),
      signal: o.signal,
      onPrime: (r) => o.emit(r, registrations),
      onNotice: progress.notice,
      onProgress: (p) => progress.show({ held: p.held, workers: p.workers.length, candidateRate: p.rate, ...(progress.found ? {} : { rate: `${formatRate(p.rate)} candidates` }) }),
    });
    await registrations?.drain(o.signal);
  } finally {
    await registrations?.close();
  }
}
