import { describe, expect, it } from 'vitest';
import { candidate, powLayout } from '../src/index.ts';

describe('canonical candidate order', () => {
  it.each(Array.from({ length: 64 }, (_, r) => r))('nonce length ≡ %i (mod 64): one final block, whole changing word', (r) => {
    for (const L of [r, r + 64, r + 640]) {
      const layout = powLayout(L);
      expect(layout.width).toBeGreaterThanOrEqual(1);
      expect(layout.width).toBeLessThanOrEqual(32);
      const total = L + layout.width;
      // The message ends at byte e of its final block, leaving room for 0x80 and the length.
      expect(total % 64).toBe(layout.digitsEnd);
      expect(layout.digitsEnd).toBeLessThanOrEqual(55);
      expect([0, 3]).toContain(layout.digitsEnd % 4);
      // At least 12 digits (10^12 candidates) change inside the final block only.
      expect(layout.digitsInBlock).toBeGreaterThanOrEqual(12);
      expect(total - layout.digitsInBlock).toBeGreaterThanOrEqual(layout.prefixLength);
      expect(layout.prefixLength % 64).toBe(0);
      expect(layout.prefixLength).toBe(total - layout.digitsEnd);
    }
  });

  it('writes k in decimal, zero-padded to the layout width', () => {
    const layout = powLayout(3);
    expect(layout.width).toBe(32);
    expect(candidate(layout, 0n)).toBe('0'.repeat(32));
    expect(candidate(layout, 7n)).toBe(`${'0'.repeat(31)}7`);
    expect(candidate(layout, 10n ** 19n - 1n)).toBe(`${'0'.repeat(13)}${'9'.repeat(19)}`);
  });

  it('follows the worked examples of its documentation', () => {
    expect(powLayout(43)).toMatchObject({ width: 12, digitsEnd: 55, digitsInBlock: 12, limit: 10n ** 12n });
    // A naive suffix of 11+ digits after 44 bytes would need a second compression.
    expect(powLayout(44)).toMatchObject({ width: 32, digitsEnd: 12, digitsInBlock: 12, prefixLength: 64 });
    expect(powLayout(60)).toMatchObject({ width: 32, digitsEnd: 28, digitsInBlock: 28, prefixLength: 64 });
  });

  it('never stops before 10^12 candidates, and caps at 10^19', () => {
    for (let L = 0; L < 128; L++) {
      const { limit, width } = powLayout(L);
      expect(limit).toBeGreaterThanOrEqual(10n ** 12n);
      expect(limit).toBe(10n ** BigInt(Math.min(width, 19)));
    }
  });
});
