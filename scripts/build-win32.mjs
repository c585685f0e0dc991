// Cross-compiles the addon for win32-x64 with Debian's MinGW-w64 into
// build-win32/, and places it in prebuilds/win32-x64/ for the packed tarball.
// node.exe exports Node-API; the import library the link needs is made with
// dlltool from node-api-headers' def/node_api.def (a dependency of cmake-js).
// `--if-possible` (when packing) only warns when the cross compiler is missing.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { exitIfMissing, placePrebuild, root, werror } from './cross-build.mjs';

const compiler = 'x86_64-w64-mingw32-g++-posix';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`powprime: win32-x64 build failed at: ${cmd} ${args.join(' ')}`);
    process.exit(r.status ?? 1);
  }
}

const missing = ['x86_64-w64-mingw32-dlltool', compiler, 'cmake'].find((t) => spawnSync(t, ['--version']).status !== 0);
exitIfMissing('win32-x64', missing && `${missing} not found (Debian: apt-get install g++-mingw-w64-x86-64-posix cmake)`);

const require = createRequire(createRequire(import.meta.url).resolve('cmake-js/package.json'));
const headers = require('node-api-headers');
const out = path.join(root, 'build-win32');
mkdirSync(out, { recursive: true });
const importLib = path.join(out, 'libnode_api.a');
run('x86_64-w64-mingw32-dlltool', ['--input-def', headers.def_paths.node_api_def, '--output-lib', importLib, '--dllname', 'node.exe']);
const generator = spawnSync('ninja', ['--version']).status === 0 ? ['-G', 'Ninja'] : [];
run('cmake', [
  '-S',
  root,
  '-B',
  out,
  ...generator,
  `-DCMAKE_TOOLCHAIN_FILE=${path.join(root, 'cmake/x86_64-w64-mingw32.cmake')}`,
  '-DCMAKE_BUILD_TYPE=Release',
  `-DCMAKE_JS_INC=${headers.include_dir}`,
  `-DCMAKE_JS_LIB=${importLib}`,
  ...(werror ? ['-DPOWPRIME_WERROR=ON'] : []),
]);
run('cmake', ['--build', out]);
placePrebuild('win32-x64', path.join(out, 'powprime.node'), 'win32-x64', 'powprime.node');
