/** `1 worker`, `2 workers`: a count with its noun in the right number (every noun here takes an s). */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
