// The last step of `npm pack` (prepack): a release carries every prebuilt
// addon, so packing fails unless all five are in prebuilds/ and built for this
// version. The cross builds before it only warn when their toolchain is
// missing (`--if-possible`), and an addon left there by an earlier build of
// another version would be refused at load, so both count as missing here.
// POWPRIME_PACK_PARTIAL=1 packs anyway (a local pack or a test on a machine
// without the cross compilers), still naming what is missing. Self-contained,
// so that the tests can run it in a temporary copy of the package.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every prebuild a release carries, with the command that builds it (docs/install.md, A complete release, names the Debian packages). */
const PREBUILDS = [
  { label: 'linux-x64', file: 'linux-x64/powprime.node', build: 'node scripts/prebuild.mjs' },
  { label: 'linux-x64 musl', file: 'linux-x64/powprime.musl.node', build: 'node scripts/build-musl.mjs' },
  { label: 'linux-arm64', file: 'linux-arm64/powprime.node', build: 'npm run build:native:arm64' },
  { label: 'linux-arm64 musl', file: 'linux-arm64/powprime.musl.node', build: 'node scripts/build-musl.mjs --arch arm64' },
  { label: 'win32-x64', file: 'win32-x64/powprime.node', build: 'npm run build:native:win32' },
];

const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
// The addon holds its version as a C string (POWPRIME_VERSION in CMakeLists.txt):
// found without loading it, which a cross-built file cannot be here.
const builtFor = new RegExp(`(?<![0-9.])${version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\x00`);

const missing = [];
for (const p of PREBUILDS) {
  const file = path.join(root, 'prebuilds', p.file);
  if (!existsSync(file)) missing.push({ ...p, why: 'missing' });
  else if (!builtFor.test(readFileSync(file).toString('latin1'))) missing.push({ ...p, why: `not built for ${version}` });
}

if (missing.length === 0) {
  console.log(`powprime: all ${PREBUILDS.length} prebuilds present for ${version} (${PREBUILDS.map((p) => p.label).join(', ')})`);
} else {
  const names = missing.map((p) => `${p.label} (prebuilds/${p.file}: ${p.why})`).join(', ');
  if (process.env.POWPRIME_PACK_PARTIAL === '1') {
    console.warn(`powprime: packing without ${missing.length} of ${PREBUILDS.length} prebuilds (POWPRIME_PACK_PARTIAL=1): ${names}`);
  } else {
    const builds = missing.map((p) => p.build).join('; ');
    console.error(
      `powprime: not packing a release without ${missing.length} of ${PREBUILDS.length} prebuilds: ${names}. To build: ${builds} (the Debian packages they need: docs/install.md, A complete release), or set POWPRIME_PACK_PARTIAL=1 for a local pack without them`,
    );
    process.exit(1);
  }
}
