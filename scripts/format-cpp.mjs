// Runs clang-format over the C and C++ sources in native/ (every .cc, .h and .c that git
// tracks). With --check it writes nothing and exits 1 when a file would change.
// A script rather than a shell glob so that it lists the same files everywhere.
import { execFileSync, spawnSync } from 'node:child_process';

const check = process.argv.includes('--check');
const files = execFileSync('git', ['ls-files', '-z', '--', 'native/*.cc', 'native/*.h', 'native/*.c'], { encoding: 'utf8' })
  .split('\0')
  .filter((f) => f !== '');
if (files.length === 0) {
  console.error('format-cpp: no C++ files found under native/');
  process.exit(2);
}
const args = check ? ['--dry-run', '--Werror', ...files] : ['-i', ...files];
const r = spawnSync(process.env.CLANG_FORMAT ?? 'clang-format', args, { stdio: 'inherit' });
if (r.error) {
  console.error(`format-cpp: cannot run clang-format (${r.error.message}); install it, e.g. apt-get install clang-format`);
  process.exit(2);
}
process.exit(r.status ?? 1);
