// --out files as a user meets them: a disk that fills up (a real small tmpfs,
// so writeSync really takes fewer bytes than given), special files, and
// resume lines that are not what search wrote.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, lstatSync, statSync, symlinkSync, truncateSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliSync } from './helpers/cli.ts';
import { startFakeServices } from '../src/fake-services/index.ts';
import { Keystore } from '../src/clients/registry/keystore.ts';
import { b85decode } from '../src/clients/registry/base85.ts';
import { isSafePrimeByNodeCrypto } from './helpers/number-theory.ts';
import { tempDir } from './helpers/tmp.ts';

const cli = runCliSync;
/** The oracle: node:crypto's (OpenSSL's) primality test on p and (p-1)/2. */
const mounted: string[] = [];

/** A tmpfs of `size` at a new folder, or why one cannot be mounted here. */
function smallDisk(size: string): string {
  const dir = tempDir('powprime-disk-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  mounted.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of mounted.splice(0)) spawnSync('umount', [dir]);
});

const canMount = ((): string | null => {
  if (process.platform !== 'linux') return 'tmpfs mounts need Linux';
  const probe = tempDir('powprime-probe-');
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]);
  if (r.status !== 0) return `cannot mount a tmpfs here (${(r.stderr?.toString() ?? '').trim() || 'needs root'})`;
  spawnSync('umount', [probe]);
  return null;
})();
if (canMount) console.warn(`skipping the full-disk tests: ${canMount}`);

/** Fills the file system holding `dir` to the last byte. */
function fill(dir: string): void {
  const fd = openSync(path.join(dir, 'filler'), 'a');
  const chunk = Buffer.alloc(4096, 0x61);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
  }
  // Byte by byte to the very end.
  try {
    for (;;) writeSync(fd, chunk, 0, 1);
  } catch {
    /* full */
  }
  closeSync(fd);
}

const lines = (file: string): { prime: string; bits: number; seed: string; index: number }[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

const oneLine = (stderr: string): string[] => stderr.trimEnd().split('\n');

describe.skipIf(canMount !== null)('on a disk that fills up', () => {
  it('search --out: exit 1 and one line naming the file; every line on disk whole and verified; a rerun elsewhere resumes', { timeout: 300_000 }, () => {
    const disk = smallDisk('64k');
    const out = path.join(disk, 'c.jsonl');
    expect(cli('search', '--bits', '256', '--count', '3', '--seed', '12', '--out', out).status).toBe(0);
    fill(disk);
    const r = cli('search', '--bits', '256', '--count', '200', '--out', out);
    expect(r.status).toBe(1);
    expect(oneLine(r.stderr)).toEqual([`powprime: cannot write ${out}: no space left on the device (ENOSPC); ${out} holds only whole lines (cut back to the last one written whole)`]);
    expect(r.stdout).toBe('');
    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const got = lines(out);
    expect(got.length).toBeGreaterThan(3);
    got.forEach((l, i) => {
      expect(l.index).toBe(i);
      expect(isSafePrimeByNodeCrypto(BigInt(l.prime))).toBe(true);
    });
    // The same run continues on a disk with room.
    const roomy = path.join(tempDir(), 'c.jsonl');
    copyFileSync(out, roomy);
    const more = cli('search', '--bits', '256', '--count', String(got.length + 2), '--out', roomy, '--json');
    expect(more.status, more.stderr).toBe(0);
    expect(JSON.parse(more.stdout)).toMatchObject({ found: 2, total: got.length + 2, seed: '12' });
  });

  it('moduli --out: exit 1 and one line naming the file; the groups on disk whole and resumable', { timeout: 300_000 }, () => {
    const disk = smallDisk('64k');
    const out = path.join(disk, 'moduli');
    expect(cli('moduli', '--bits', '2048', '--count', '1', '--seed', '12', '--out', out).status).toBe(0);
    // A comment line (sshd and resume skip them) up to the tmpfs page's end: the next group needs a page the disk has not.
    const slack = 4096 - (statSync(out).size % 4096);
    appendFileSync(out, `#${'-'.repeat(slack + (slack < 2 ? 4096 : 0) - 2)}\n`);
    fill(disk);
    const r = cli('moduli', '--bits', '2048', '--count', '3', '--out', out);
    expect(r.status).toBe(1);
    expect(oneLine(r.stderr)).toEqual([`powprime: cannot write ${out}: no space left on the device (ENOSPC); ${out} holds only whole lines (cut back to the last one written whole)`]);
    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    // Resumed on a disk with room: what the full disk left is checked and continued.
    const roomy = path.join(tempDir(), 'moduli');
    copyFileSync(out, roomy);
    const groups = text.split('\n').filter((l) => /^\d/.test(l)).length;
    const more = cli('moduli', '--bits', '2048', '--count', String(groups + 1), '--out', roomy, '--json');
    expect(more.status, more.stderr).toBe(0);
    expect(JSON.parse(more.stdout)).toMatchObject({ found: 1, total: groups + 1, seed: '12' });
  });

  it('search --register --keystore: exit 1, one line; every key written before is there, nothing is reported registered that is not on disk', { timeout: 300_000 }, async () => {
    const fake = await startFakeServices();
    try {
      const disk = smallDisk('64k');
      const keys = path.join(disk, 'keys.json');
      const out = path.join(tempDir(), 'r.jsonl');
      const args = (count: number): string[] => [
        'search',
        '--bits',
        '256',
        '--count',
        String(count),
        '--seed',
        '5',
        '--out',
        out,
        '--register',
        '--base-url',
        fake.url.href,
        '--state-dir',
        tempDir(),
        '--keystore',
        keys,
        '--no-limits',
        '--json',
      ];
      const first = await runCli(...args(3));
      expect(first.status, first.stderr).toBe(0);
      fill(disk);
      // Nearly full: room for a few registrations.
      const filler = path.join(disk, 'filler');
      truncateSync(filler, statSync(filler).size - 16000);
      const r = await runCli(...args(300));
      expect(r.status).toBe(1);
      expect(oneLine(r.stderr)).toEqual([expect.stringMatching(new RegExp(`^powprime: cannot write ${keys}(\\.journal)?: no space left on the device \\(ENOSPC\\)`))]);
      expect(r.stdout).toBe('');
      expect(readdirSync(disk).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      // Every prime the registry took has its key on disk, or (at most the one whose answer met the full disk) is reported at the next run.
      const stored = new Map(new Keystore(keys).all().map((e) => [e.prime, e]));
      const registered = fake.registry.added.map(String);
      const withoutKey = registered.filter((p) => stored.get(p)?.state !== 'registered');
      for (const p of registered.filter((x) => !withoutKey.includes(x))) expect(b85decode(stored.get(p)!.key!)).toEqual(fake.registry.keyOf(BigInt(p)));
      expect(withoutKey).toEqual([]);
      expect(registered.length).toBeGreaterThan(3);
    } finally {
      fake.close();
    }
  });

  it('merge --out: exit 1, one line, the previous merged file intact, no temporary file left', { timeout: 300_000 }, () => {
    const src = tempDir();
    const a = path.join(src, 'a.jsonl');
    expect(cli('search', '--bits', '256', '--count', '40', '--seed', '7', '--out', a).status).toBe(0);
    const disk = smallDisk('64k');
    const merged = path.join(disk, 'm.jsonl');
    const small = path.join(src, 'small.jsonl');
    writeFileSync(small, `${readFileSync(a, 'utf8').split('\n').slice(0, 2).join('\n')}\n`);
    expect(cli('merge', small, '--out', merged).status).toBe(0);
    const before = readFileSync(merged);
    fill(disk);
    const r = cli('merge', a, '--out', merged);
    expect(r.status).toBe(1);
    expect(oneLine(r.stderr)).toEqual([`powprime: cannot write ${merged}: no space left on the device (ENOSPC); ${merged} is unchanged`]);
    expect(readFileSync(merged).equals(before)).toBe(true);
    expect(readdirSync(disk).sort()).toEqual(['filler', 'm.jsonl']);
  });
});

describe.skipIf(canMount !== null)('on a disk with no room at all', () => {
  it.each([
    ['with the native addon', {}],
    ['without it (the pid-file lock)', { POWPRIME_BACKEND: 'js' }],
  ])('search --out %s: exit 1, one line naming the file, no temporary or lock file left', (_what, env) => {
    const disk = smallDisk('64k');
    fill(disk);
    const out = path.join(disk, 'n.jsonl');
    const r = runCliSync.withEnv(env)('search', '--bits', '256', '--count', '2', '--seed', '1', '--out', out);
    expect(r.status).toBe(1);
    expect(oneLine(r.stderr)).toEqual([expect.stringMatching(new RegExp(`^powprime: cannot write ${out}: no space left on the device \\(ENOSPC\\); `))]);
    expect(readdirSync(disk).filter((f) => f.endsWith('.tmp') || f.endsWith('.lock'))).toEqual([]);
  });
});

describe('a file size limit (RLIMIT_FSIZE) cuts a write short', () => {
  it.skipIf(spawnSync('prlimit', ['--version']).status !== 0)('merge --out over the limit: EFBIG, exit 1, nothing left behind', { timeout: 300_000 }, () => {
    const src = tempDir();
    const a = path.join(src, 'a.jsonl');
    expect(cli('search', '--bits', '256', '--count', '40', '--seed', '8', '--out', a).status).toBe(0);
    const merged = path.join(src, 'm.jsonl');
    // 2 KiB: a few lines fit, the 40 do not.
    const r = spawnSync('prlimit', ['--fsize=2048', process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'merge', a, '--out', merged], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(oneLine(r.stderr)).toEqual([`powprime: cannot write ${merged}: file too large for the file system or the process limit (EFBIG); ${merged} is unchanged`]);
    expect(readdirSync(src).sort()).toEqual(['a.jsonl']);
  });
});

describe('--out must be a regular file or absent', () => {
  const dir = tempDir();
  const fifo = path.join(dir, 'fifo');
  spawnSync('mkfifo', [fifo]);
  mkdirSync(path.join(dir, 'folder'));
  it.each([
    ['a FIFO', fifo, /is not a regular file/],
    ['/dev/zero', '/dev/zero', /is not a regular file/],
    ['/dev/null', '/dev/null', /is not a regular file/],
    ['/dev/full', '/dev/full', /is not a regular file/],
    ['a folder', path.join(dir, 'folder'), /is a directory/],
    ['""', '', /must name a file \(got ""\)/],
  ])('search --out %s: exit 2, one line', (_what, out, message) => {
    const r = cli('search', '--bits', '64', '--count', '1', '--seed', '1', '--out', out);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toEqual([expect.stringMatching(message)]);
    expect(r.stderr).toMatch(/^powprime: --out /);
  });

  it('merge --out a FIFO: exit 2, one line', () => {
    const a = path.join(dir, 'a.jsonl');
    expect(cli('search', '--bits', '64', '--count', '1', '--seed', '1', '--out', a).status).toBe(0);
    const r = cli('merge', a, '--out', fifo);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toEqual([`powprime: --out ${fifo} is not a regular file (a device, FIFO or socket); give a file name`]);
  });

  it.each([
    ['a FIFO', () => fifo, /is not a regular file/],
    ['/dev/null', () => '/dev/null', /is not a regular file/],
    ['a folder', () => path.join(dir, 'folder'), /is a directory/],
    ['""', () => '', /must name a file \(got ""\)/],
    [
      'a loop of links',
      () => {
        const link = path.join(dir, 'loop');
        if (!lstatSync(link, { throwIfNoEntry: false })) symlinkSync(link, link);
        return link;
      },
      /is a loop of links/,
    ],
    ['a file in a missing folder', () => path.join(dir, 'nonexistent', 'dh.pem'), /its folder .* does not exist/],
  ])('dhparam and merge --out %s (replaced whole, so judged first): exit 2, one line, nothing made', (_what, out, message) => {
    const file = out();
    const before = readdirSync(dir).sort();
    for (const args of [
      ['dhparam', '512', '--seed', '1', '--out', file],
      ['merge', path.join(dir, 'none.jsonl'), '--out', file],
    ]) {
      const r = cli(...args);
      expect(r.status).toBe(2);
      expect(oneLine(r.stderr)).toEqual([expect.stringMatching(message)]);
    }
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('dhparam and merge --out through a link write the file it points to (made if missing); the link stays a link', () => {
    const real = path.join(dir, 'real.pem');
    const link = path.join(dir, 'link.pem');
    writeFileSync(real, 'old\n');
    symlinkSync(real, link);
    expect(cli('dhparam', '1024', '--seed', '1', '--out', link).status).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toMatch(/^-----BEGIN DH PARAMETERS-----\n/);
    const a = path.join(dir, 'm-in.jsonl');
    expect(cli('search', '--bits', '64', '--count', '2', '--seed', '1', '--out', a).status).toBe(0);
    const mreal = path.join(dir, 'm-real.jsonl');
    const mlink = path.join(dir, 'm-link.jsonl');
    symlinkSync(mreal, mlink);
    expect(cli('merge', a, '--out', mlink).status).toBe(0);
    expect(lstatSync(mlink).isSymbolicLink()).toBe(true);
    expect(readFileSync(mreal, 'utf8')).toBe(readFileSync(a, 'utf8'));
  });

  // Root may write any file: the check is the OS's, seen only by another user.
  it.skipIf(process.getuid?.() === 0)('dhparam and merge --out a read-only file: exit 2, the file unchanged', () => {
    const ro = path.join(dir, 'ro.pem');
    writeFileSync(ro, 'keep\n');
    chmodSync(ro, 0o444);
    for (const args of [
      ['dhparam', '1024', '--seed', '1', '--out', ro],
      ['merge', path.join(dir, 'none.jsonl'), '--out', ro],
    ]) {
      const r = cli(...args);
      expect(r.status).toBe(2);
      expect(oneLine(r.stderr)).toEqual([`powprime: --out ${ro} is read-only for this user; give another file`]);
    }
    expect(readFileSync(ro, 'utf8')).toBe('keep\n');
  });

  it('an --out in a folder that does not exist is named, not its lock file', () => {
    const out = path.join(dir, 'nonexistent', 'x.jsonl');
    const r = cli('search', '--bits', '64', '--count', '1', '--seed', '1', '--out', out);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`powprime: --out ${out}: its folder ${path.join(dir, 'nonexistent')} does not exist\n`);
  });
});

describe('downloads and the keystore: --out and --keystore judged before any request', () => {
  const dir = tempDir();
  const fifo = path.join(dir, 'fifo');
  spawnSync('mkfifo', [fifo]);
  mkdirSync(path.join(dir, 'folder'));
  let fake: Awaited<ReturnType<typeof startFakeServices>>;
  beforeAll(async () => {
    fake = await startFakeServices({ unlimited: true });
  });
  afterAll(() => fake.close());

  it.each([
    ['a FIFO', fifo, /is not a regular file/],
    ['/dev/null', '/dev/null', /is not a regular file/],
    ['a folder', path.join(dir, 'folder'), /is a directory/],
    ['a file in a missing folder', path.join(dir, 'nonexistent', 'x.bin'), /its folder .* does not exist/],
  ])('ads image --out, question file --out and registry --keystore %s: exit 2, one line, nothing sent or made', async (_what, file, message) => {
    const before = readdirSync(dir).sort();
    const sent = fake.requests.length;
    for (const args of [
      ['ads', 'image', 'eve.png', '--out', file],
      ['question', 'file', 'some-id', 'notes.txt', '--out', file],
      ['registry', 'add', '23', '--keystore', file],
    ]) {
      const r = await runCli(...args, '--base-url', fake.url.href, '--state-dir', tempDir(), '--no-limits');
      expect(r.status, args.join(' ')).toBe(2);
      expect(oneLine(r.stderr)).toEqual([expect.stringMatching(message)]);
    }
    expect(fake.requests.length).toBe(sent);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  // One wording, from one check, for every command writing a file: a path ending in "/" names the folder, which must exist too.
  it.each([
    ['a missing folder', (d: string) => path.join(d, 'missing', 'x.out'), (d: string) => `its folder ${path.join(d, 'missing')} does not exist`],
    ['a missing folder, the path ending in /', (d: string) => `${path.join(d, 'missing')}/`, (d: string) => `its folder ${path.join(d, 'missing')} does not exist`],
    [
      'a folder under a file',
      (d: string) => path.join(d, 'a-file', 'sub', 'x.out'),
      (d: string) => `its folder ${path.join(d, 'a-file', 'sub')} does not exist (${path.join(d, 'a-file')} is not a directory)`,
    ],
    ['a file where the folder belongs', (d: string) => path.join(d, 'a-file', 'x.out'), (d: string) => `its folder ${path.join(d, 'a-file')} is not a directory`],
  ])('ads image, search, moduli and dhparam --out in %s: the same line, exit 2, nothing sent or made', async (_what, outOf, reasonOf) => {
    const d = tempDir();
    writeFileSync(path.join(d, 'a-file'), 'x');
    const out = outOf(d);
    const sent = fake.requests.length;
    for (const args of [
      ['ads', 'image', 'eve.png', '--out', out, '--base-url', fake.url.href, '--state-dir', tempDir(), '--no-limits'],
      ['search', '--bits', '64', '--count', '1', '--out', out],
      ['moduli', '--bits', '2048', '--count', '1', '--out', out],
      ['dhparam', '512', '--out', out],
    ]) {
      const r = await runCli(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`powprime: --out ${out}: ${reasonOf(d)}\n`);
    }
    expect(fake.requests.length).toBe(sent);
    expect(readdirSync(d)).toEqual(['a-file']);
  });

  it('ads image --out through a link writes the file it points to; the link stays a link', async () => {
    const real = path.join(dir, 'real.png');
    const link = path.join(dir, 'link.png');
    symlinkSync(real, link);
    const r = await runCli('ads', 'image', 'eve.png', '--out', link, '--base-url', fake.url.href, '--state-dir', tempDir(), '--no-limits');
    expect(r.status, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('PNG:eve.png');
  });
});

describe('resume checks every line it continues from', () => {
  const made = (() => {
    const file = path.join(tempDir(), 'good.jsonl');
    expect(cli('search', '--bits', '256', '--count', '4', '--seed', '21', '--out', file).status).toBe(0);
    return readFileSync(file, 'utf8').trim().split('\n');
  })();
  const withLine3 = (edit: (l: Record<string, unknown>) => void): string => {
    const file = path.join(tempDir(), 'edited.jsonl');
    const ls = made.map((l) => JSON.parse(l) as Record<string, unknown>);
    edit(ls[2]!);
    writeFileSync(file, ls.map((l) => `${JSON.stringify(l)}\n`).join(''));
    return file;
  };
  it.each([
    ['"prime":"15"', (l: Record<string, unknown>) => (l.prime = '15'), /line 3: "prime":"15" has 4 bits, not 256/],
    ['a 5-bit 23', (l: Record<string, unknown>) => (l.prime = '23'), /line 3: "prime":"23" has 5 bits, not 256/],
    ['"seed":"nine"', (l: Record<string, unknown>) => (l.seed = 'nine'), /line 3 does not continue this run \(bits 256, seed "nine"/],
    // The next candidate of the same index's share: where the run could have put a prime, but not safe.
    ['a 256-bit prime that is not safe', (l: Record<string, unknown>) => (l.prime = (BigInt(l.prime as string) + 12n).toString()), /line 3: \d+ is not a safe prime/],
    [
      "line 1's prime",
      (l: Record<string, unknown>) => (l.prime = (JSON.parse(made[0]!) as { prime: string }).prime),
      /line 3: "prime" is not index 2's of the 256-bit run with seed 21 \(a line moved, or from another file or run\)/,
    ],
    ['an index out of sequence', (l: Record<string, unknown>) => (l.index = 7), /line 3 does not continue this run .*expected index 2/],
  ])('%s on line 3: exit 2, one line naming it, the file untouched', (_what, edit, message) => {
    const file = withLine3(edit);
    const before = readFileSync(file);
    const r = cli('search', '--bits', '256', '--count', '6', '--out', file);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toEqual([expect.stringMatching(message)]);
    expect(r.stderr).toContain(`${file} line 3`);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('a seed that is not a number on line 1: exit 2, one line', () => {
    const file = path.join(tempDir(), 'seed.jsonl');
    writeFileSync(file, `${made[0]!.replace('"seed":"21"', '"seed":"nine"')}\n`);
    const r = cli('search', '--bits', '256', '--count', '2', '--out', file);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toEqual([`powprime: --out file ${file} line 1: "seed":"nine" is not a decimal seed below 2^256 (refusing to resume from it)`]);
  });
});

// A file's name is on disk only once its folder is synced: a folder sync that fails (EIO) must fail
// the write, not leave "written" or a printed prime that a power loss takes back. strace injects the
// error into the real system call (fsync; the --out lines themselves are synced with fdatasync).
const hasStrace = spawnSync('strace', ['-V']).status === 0;
describe.skipIf(!hasStrace && process.env.POWPRIME_REQUIRE_STRACE !== '1')('a folder sync that fails', () => {
  const underStrace = (inject: string, args: string[]): ReturnType<typeof spawnSync> =>
    spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', '-e', 'trace=fsync', '-e', `inject=fsync:${inject}`, process.execPath, ...args], { encoding: 'utf8', timeout: 120_000 });

  it('search --out: exit 1 naming the file, and no prime reported', () => {
    const dir = tempDir();
    const out = path.join(dir, 'p.jsonl');
    const r = underStrace('error=EIO', ['--import', 'tsx', 'src/cli/main.ts', 'search', '--bits', '64', '--count', '2', '--seed', '1', '--out', out]);
    expect(r.status, String(r.stderr)).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`powprime: .*${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*input/output error \\(EIO\\)`));
    expect(r.stdout).toBe('');
    // The line whose folder entry may not be on disk was cut back.
    expect(readFileSync(out, 'utf8')).toBe('');
  });

  it('a state file replaced whole (writeFileAtomic): WriteFailedError, not success', () => {
    const dir = tempDir();
    const file = path.join(dir, 'state.json');
    // fsync number 1 is the temporary file's, number 2 the folder's.
    const script = `import { writeFileAtomic } from './src/fs/atomic-write.ts';
try { writeFileAtomic(${JSON.stringify(file)}, '{}'); console.log('written'); } catch (e) { console.log(e.code, e.message); }`;
    const r = underStrace('error=EIO:when=2', ['--import', 'tsx', '--input-type=module', '-e', script]);
    expect(r.status, String(r.stderr)).toBe(0);
    expect(r.stdout).toMatch(/^ERR_WRITE_FAILED .*state\.json.*input\/output error \(EIO\)/);
  });
});
