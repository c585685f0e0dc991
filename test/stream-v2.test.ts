/**
 * Stream v2's start positions against Python's hashlib (an independent
 * implementation of the derivation in src/prime/stream.ts's header).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { spacing, stream } from '../src/prime/stream.ts';

const ORACLE = `
import hashlib, sys, json
out = []
for bits, seed, index in json.loads(sys.argv[1]):
    top = 1 << bits
    floor = 3 << (bits - 2)
    lo = floor + (11 - floor % 12) % 12
    count = (top - 1 - lo) // 12 + 1
    n = (bits + 7) // 8 + 16
    h = b''
    block = 0
    while len(h) < n:
        h += hashlib.sha256(b'powprime/safe-prime/v2' + bits.to_bytes(2, 'big') + int(seed).to_bytes(32, 'big') + block.to_bytes(4, 'big')).digest()
        block += 1
    c = int.from_bytes(h[:n], 'big') % count
    out.append(str((c + 4 * bits * bits * int(index)) % count))
print(json.dumps(out))
`;

describe('stream v2', () => {
  const cases: [number, bigint, bigint][] = [
    [16, 0n, 0n],
    [16, 1n, 7n], // M = 1024 against about 1,365 candidates: wraps
    [64, 5n, 3n],
    [512, 2026n, 0n],
    [512, 2026n, 1n],
    [2048, 1n, 31n],
    [3072, (1n << 256n) - 1n, (1n << 64n) - 1n],
  ];

  it('starts where an independent implementation says', () => {
    const want = JSON.parse(execFileSync('python3', ['-c', ORACLE, JSON.stringify(cases.map(([b, s, i]) => [b, s.toString(), i.toString()]))], { encoding: 'utf8' })) as string[];
    expect(cases.map(([b, s, i]) => stream(b, s, i, 2).first.toString())).toEqual(want);
  });

  it('puts consecutive indexes M = 4·bits² candidates apart', () => {
    const a = stream(2048, 9n, 100n, 2);
    const b = stream(2048, 9n, 101n, 2);
    expect(spacing(2048)).toBe(4n * 2048n * 2048n);
    expect((b.first - a.first + b.count) % b.count).toBe(spacing(2048));
  });

  it('is another stream than version 1', () => {
    expect(stream(512, 2026n, 3n, 1).first).not.toBe(stream(512, 2026n, 3n, 2).first);
  });
});
