/** Reading moduli files in tests: the fields of each group that do not depend on when it was written. */
import { readFileSync } from 'node:fs';

/** All but the timestamp of each moduli line (comments and headers left out). */
export const timelessLines = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.split(' ').slice(1).join(' '));

export const timeless = (file: string): string[] => timelessLines(readFileSync(file, 'utf8'));
