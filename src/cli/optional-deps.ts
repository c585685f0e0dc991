/**
 * Queue mode and the benchmark's HTML report need libraries a default install
 * leaves out (optional peer dependencies: together they weigh several times
 * the rest). When one is missing, the CLI says in one line what to install.
 */

const PIECES: { packages: string[]; what: string }[] = [
  { packages: ['bullmq', 'ioredis'], what: 'queue mode (search --queue, moduli --queue, worker, queue)' },
  { packages: ['vega', 'vega-lite'], what: 'bench --report' },
];

/** The one-line advice for an import that failed on a missing optional package, or null for any other error. */
export function missingPieceMessage(err: unknown): string | null {
  const e = err as { code?: string; message?: string } | null;
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || typeof e.message !== 'string') return null;
  const name = /Cannot find (?:package|module) '([^']+)'/.exec(e.message)?.[1];
  const piece = PIECES.find((p) => name !== undefined && p.packages.some((pkg) => name === pkg || name.startsWith(`${pkg}/`)));
  if (!piece) return null;
  return `${piece.what} needs ${piece.packages.join(' and ')}, which a default install leaves out: npm install ${piece.packages.join(' ')}`;
}
