/**
 * The program interpreter (PT_INTERP) an ELF executable names, e.g.
 * "/lib64/ld-linux-x86-64.so.2" (glibc) or "/lib/ld-musl-x86_64.so.1" (musl).
 * The loader reads the running Node's to tell which C library it links
 * against: that, not what the distribution says of itself, decides which
 * prebuilt addon can load into the process.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const PT_INTERP = 3;

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, offset);
  return buf.subarray(0, n);
}

/**
 * The interpreter path, or null when the file is an ELF without one (a static
 * executable). Throws when the file cannot be read or is no ELF file.
 */
export function elfInterpreter(file: string): string | null {
  const fd = openSync(file, 'r');
  try {
    const ident = readAt(fd, 0, 64);
    if (ident.length < 52 || ident.readUInt32BE(0) !== 0x7f454c46) throw new Error(`${file}: not an ELF file`);
    const is64 = ident[4] === 2;
    const le = ident[5] === 1;
    const u16 = (b: Buffer, o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
    const u32 = (b: Buffer, o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
    // 64-bit offsets beyond 2^53 cannot occur in a real executable; Number() is exact below that.
    const word = (b: Buffer, o: number) => (is64 ? Number(le ? b.readBigUInt64LE(o) : b.readBigUInt64BE(o)) : u32(b, o));
    const phoff = word(ident, is64 ? 0x20 : 0x1c);
    const phentsize = u16(ident, is64 ? 0x36 : 0x2a);
    const phnum = u16(ident, is64 ? 0x38 : 0x2c);
    const table = readAt(fd, phoff, phentsize * phnum);
    for (let i = 0; i + 1 <= phnum && (i + 1) * phentsize <= table.length; i++) {
      const ph = table.subarray(i * phentsize, (i + 1) * phentsize);
      if (u32(ph, 0) !== PT_INTERP) continue;
      const offset = word(ph, is64 ? 0x08 : 0x04);
      const size = word(ph, is64 ? 0x20 : 0x10);
      const text = readAt(fd, offset, Math.min(size, 4096)).toString('latin1');
      const end = text.indexOf('\0');
      return end === -1 ? text : text.slice(0, end);
    }
    return null;
  } finally {
    closeSync(fd);
  }
}
