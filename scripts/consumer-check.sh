#!/usr/bin/env bash
# Uses powprime exactly as a stranger would: packs the tarball, installs it
# with production dependencies only into an empty project whose PATH has no
# cmake and no C/C++ compiler, and runs the CLI, an ES module import, a
# CommonJS require and a TypeScript consumer (skipLibCheck off, under
# `module: nodenext` and `moduleResolution: bundler`, TypeScript 5.0, 5.9 and 7, with
# and without @types/node), and the same session and CLI on Bun and Deno
# (from npm; POWPRIME_CONSUMER_RUNTIMES=0 leaves them out). The native
# backend must come from the prebuilt addon. POWPRIME_CONSUMER_TYPES=0 and
# POWPRIME_CONSUMER_ARM64=0 leave out the TypeScript consumers and the arm64
# Node (test:node-versions does, on every Node it runs: neither changes with
# the Node that installs, and test:package checks both on CI's own Node).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/powprime-consumer-XXXXXX")"
trap 'rm -rf "$work"' EXIT

step() { printf '\n== %s\n' "$*"; }

step "pack"
# As a release is packed: prepack builds every prebuild it can and then refuses
# (exit 1, one line) unless all five are there for this version. .ci/run
# installs every cross toolchain, so CI packs complete and sets no opt-out; on
# a machine without them, POWPRIME_PACK_PARTIAL=1 npm run test:package packs
# what it can (the opt-out passes through from the caller, never set here), and
# the checks below still require each prebuild whose toolchain is present.
(cd "$repo" && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/powprime-*.tgz)"
listing="$(tar tzf "$tarball")"
grep -q "package/prebuilds/$(node -p 'process.platform + "-" + process.arch')/powprime.node" <<<"$listing" \
  || { echo "the tarball carries no prebuild for this platform"; exit 1; }
if [ "${POWPRIME_REQUIRE_ARM64:-}" = 1 ] || command -v aarch64-linux-gnu-g++ >/dev/null; then
  grep -q "package/prebuilds/linux-arm64/powprime.node" <<<"$listing" || { echo "the tarball carries no linux-arm64 prebuild"; exit 1; }
fi
if [ "${POWPRIME_REQUIRE_MUSL:-}" = 1 ] || [ -e /usr/lib/x86_64-linux-musl/libc.a ]; then
  grep -q "package/prebuilds/linux-x64/powprime.musl.node" <<<"$listing" || { echo "the tarball carries no linux-x64 musl prebuild"; exit 1; }
fi
if [ "${POWPRIME_REQUIRE_MUSL:-}" = 1 ] || { [ -e /usr/lib/aarch64-linux-musl/libc.a ] && command -v aarch64-linux-gnu-g++ >/dev/null; }; then
  grep -q "package/prebuilds/linux-arm64/powprime.musl.node" <<<"$listing" || { echo "the tarball carries no linux-arm64 musl prebuild"; exit 1; }
fi
if [ "${POWPRIME_REQUIRE_WIN32:-}" = 1 ] || command -v x86_64-w64-mingw32-g++-posix >/dev/null; then
  grep -q "package/prebuilds/win32-x64/powprime.node" <<<"$listing" || { echo "the tarball carries no win32-x64 prebuild"; exit 1; }
fi
if grep -E '\.map$|^package/(test|src)/' <<<"$listing"; then echo "the tarball ships source maps or sources"; exit 1; fi

step "a PATH without cmake or a compiler"
bin="$work/bin"
mkdir -p "$bin"
for tool in node npm npx sh bash env cat ls ln mkdir rm mv cp chmod uname grep sed tar gzip dirname basename mktemp tee du cut head printf; do
  ln -s "$(command -v "$tool")" "$bin/$tool"
done
qemu="$(command -v qemu-aarch64 || true)"
arm_node=""
[ -n "$qemu" ] && [ "${POWPRIME_CONSUMER_ARM64:-1}" != 0 ] && arm_node="$(cd "$repo" && node scripts/arm64-node.mjs)"
export PATH="$bin"
for tool in cmake cc gcc g++ c++ clang make; do
  if command -v "$tool" >/dev/null; then echo "$tool is still on PATH"; exit 1; fi
done

step "npm install --omit=dev (as npm install powprime does)"
app="$work/app"
mkdir -p "$app"
cd "$app"
echo '{ "name": "consumer", "version": "1.0.0", "private": true }' > package.json
npm install --omit=dev --no-audit --no-fund --foreground-scripts "$tarball" 2>&1 | tee "$work/install.log"
grep -q 'using the prebuilt native addon' "$work/install.log" || { echo "the install did not use the prebuild"; exit 1; }
if [ -e node_modules/powprime/build ]; then echo "the install compiled the addon"; exit 1; fi
if [ -e node_modules/bigint-crypto-utils ] || [ -e node_modules/vitest ]; then echo "devDependencies were installed"; exit 1; fi

step "CLI"
version="$(npx powprime --version)"
echo "$version"
case "$version" in "powprime "[0-9]*) ;; *) echo "--version does not print the version"; exit 1 ;; esac
backend="$(npx powprime backend)"
echo "$backend"
case "$backend" in *"backend: native"*) ;; *) echo "backend does not report the native backend"; exit 1 ;; esac
solution="$(npx powprime solve abc 3)"
node -e "const h = require('node:crypto').createHash('sha256').update('abc' + process.argv[1]).digest('hex'); if (!h.startsWith('000')) { console.error('bad solution', h); process.exit(1); }" "$solution"
echo "solve abc 3 → $solution"
check="$(npx powprime check 23)"
echo "check 23 → $check"
[ "$check" = "23: safe prime" ] || case "$check" in *"safe prime"*) ;; *) exit 1 ;; esac
set +e; npx powprime solve abc 99 >/dev/null 2>&1; status=$?; set -e
[ "$status" = 2 ] || { echo "bad input exited $status, not 2"; exit 1; }

step "the default install's weight, and the pieces it leaves out"
# Queue mode and bench --report need optional peers (bullmq, ioredis, vega, vega-lite).
size_kib="$(du -sk node_modules | cut -f1)"
echo "node_modules: $size_kib KiB"
# 15.0 MiB on 2026-11-29 (du counts 4 KiB blocks: the many small .d.ts files weigh more than their bytes); 16 MiB leaves room for the addons to grow a little, not for a new dependency.
[ "$size_kib" -le 16384 ] || { echo "the default install is over 16 MiB"; exit 1; }
for peer in bullmq ioredis vega vega-lite; do
  if [ -e "node_modules/$peer" ]; then echo "the optional peer $peer was installed by default"; exit 1; fi
done
for cmd in "worker --queue redis://127.0.0.1:1" "moduli --bits 2048 --count 1 --queue redis://127.0.0.1:1 --out queued-moduli" "bench --quick --report r.html"; do
  set +e; advice="$(node_modules/.bin/powprime $cmd 2>&1 >/dev/null)"; status=$?; set -e
  echo "powprime $cmd → $advice (exit $status)"
  [ "$status" = 2 ] || { echo "exit $status, not 2"; exit 1; }
  case "$advice" in "powprime: "*"npm install "*) ;; *) echo "no one-line advice"; exit 1 ;; esac
done
# Refused before its --out was opened: no file left behind with a header and a seed nobody chose.
[ ! -e queued-moduli ] || { echo "moduli --queue without its libraries made its --out file"; exit 1; }

step "ES module import"
cp "$repo/test/consumer/esm.mjs" .
node esm.mjs

step "CommonJS require"
cp "$repo/test/consumer/cjs.cjs" .
node cjs.cjs

if [ "${POWPRIME_CONSUMER_TYPES:-1}" != 0 ]; then
  step "TypeScript consumers: 5.0, 5.9 and 7, strict, skipLibCheck off, with and without @types/node"
  cp "$repo/test/consumer/consumer.ts" "$repo/test/consumer/no-node-types.ts" "$repo/test/consumer/consumer.cts" .
  # TypeScript 5.0, the oldest 5 the docs name, from npm into a folder of its own: as a devDependency
  # beside 5.9 and 7 its `tsc` would contend with theirs for node_modules/.bin.
  ts50="$work/typescript50"
  mkdir -p "$ts50"
  (cd "$ts50" && echo '{ "name": "typescript50", "version": "1.0.0", "private": true }' > package.json \
    && npm install --no-audit --no-fund --silent typescript@5.0.4)
  tsc_of() { # compiler
    if [ "$1" = typescript50 ]; then echo "$ts50/node_modules/typescript/bin/tsc"; else echo "$repo/node_modules/$1/bin/tsc"; fi
  }
  # types: a JSON list, or "" to leave the field out (TypeScript 7 then loads no
  # @types package unless a declaration references it).
  typescript() { # compiler module moduleResolution types file
    local types_field=""
    [ -n "$4" ] && types_field="\"types\": $4,"
    cat > tsconfig.json <<JSON
{ "compilerOptions": { "module": "$2", "moduleResolution": "$3", "target": "es2022", "lib": ["es2022", "dom"],
  "strict": true, "skipLibCheck": false, "noEmit": true, $types_field "forceConsistentCasingInFileNames": true },
  "files": ["$5"] }
JSON
    node "$(tsc_of "$1")" -p tsconfig.json
    echo "$(node "$(tsc_of "$1")" --version), module=$2 moduleResolution=$3 types=${4:-(unset)} $5: ok"
  }
  [ ! -e node_modules/@types/node ] || { echo "the default install brought @types/node"; exit 1; }
  # typescript50: the oldest TypeScript 5, for declarations that need no newer one. The app has no
  # "type": "module", so under nodenext its .ts files are CommonJS, which may require an ES module
  # from TypeScript 5.8 on; before that an ES module importer is a .mts file (or "type": "module").
  cp no-node-types.ts no-node-types.mts
  cp consumer.ts consumer.mts
  for compiler in typescript50 typescript typescript7; do
    ext=ts; [ "$compiler" = typescript50 ] && ext=mts
    for mode in "nodenext nodenext" "esnext bundler"; do
      typescript "$compiler" $mode '[]' no-node-types.$ext
    done
  done
  # Now as a Node project has it: @types/node installed beside the package.
  mkdir -p node_modules/@types
  ln -s "$repo/node_modules/@types/node" node_modules/@types/node
  ln -s "$repo/node_modules/undici-types" node_modules/undici-types
  for compiler in typescript50 typescript typescript7; do
    ext=ts; [ "$compiler" = typescript50 ] && ext=mts
    for mode in "nodenext nodenext" "esnext bundler"; do
      typescript "$compiler" $mode '' consumer.$ext
      typescript "$compiler" $mode '["node"]' consumer.$ext
    done
  done
  # CommonJS TypeScript requiring the ES module: from TypeScript 5.8 on, so not with typescript50.
  for compiler in typescript typescript7; do
    typescript "$compiler" nodenext nodenext '["node"]' consumer.cts
  done
  rm node_modules/@types/node node_modules/undici-types
fi

if [ "${POWPRIME_CONSUMER_RUNTIMES:-1}" != 0 ]; then
  step "Bun and Deno: the same session as on Node, the same answers, the native backend loaded"
  # From npm, as a user gets them; installed beside the app, not into it.
  runtimes="$work/runtimes"
  mkdir -p "$runtimes"
  (cd "$runtimes" && echo '{ "name": "runtimes", "version": "1.0.0", "private": true }' > package.json \
    && npm install --no-audit --no-fund --silent bun@^1.4.5 deno@^2.9.6)
  bun="$runtimes/node_modules/.bin/bun"
  deno="$runtimes/node_modules/.bin/deno"
  export DENO_DIR="$work/deno-cache" DENO_NO_UPDATE_CHECK=1
  cp "$repo/test/consumer/runtimes.mjs" .
  main=node_modules/powprime/dist/src/cli/main.js
  # The CLI's answers without their timings (search lines carry elapsedMs).
  cli_answers() { # runtime…
    "$@" "$main" backend | grep "^backend:"
    "$@" "$main" solve abc 3
    "$@" "$main" check 23 47 1019
    "$@" "$main" search --bits 256 --count 2 --seed 7 | sed 's/"elapsedMs":[0-9]*,//'
  }
  on_node="$(node runtimes.mjs)"
  cli_node="$(cli_answers node)"
  for runtime in "$bun" "$deno run -A"; do
    name="$(basename "${runtime%% *}") $($runtime --version | head -1 | grep -o '[0-9][0-9.]*' | head -1)"
    got="$($runtime runtimes.mjs)"
    [ "$got" = "$on_node" ] || { printf '%s answered\n%s\nNode answered\n%s\n' "$name" "$got" "$on_node"; exit 1; }
    cli_got="$(cli_answers $runtime)"
    [ "$cli_got" = "$cli_node" ] || { printf '%s CLI answered\n%s\nNode CLI answered\n%s\n' "$name" "$cli_got" "$cli_node"; exit 1; }
    echo "$name: the library session and the CLI's backend, solve, check and search answer as on Node ($on_node)"
  done
fi

if [ -n "$arm_node" ]; then
  step "the linux-arm64 prebuild on an arm64 Node (qemu-aarch64)"
  arm_version="$("$qemu" -L /usr/aarch64-linux-gnu "$arm_node" node_modules/powprime/dist/src/cli/main.js backend)"
  echo "$arm_version"
  case "$arm_version" in *"backend: native"*) ;; *) echo "the arm64 prebuild did not load"; exit 1 ;; esac
  arm_solution="$("$qemu" -L /usr/aarch64-linux-gnu "$arm_node" node_modules/powprime/dist/src/cli/main.js solve abc 3)"
  [ "$arm_solution" = "$solution" ] || { echo "arm64 solved abc 3 as $arm_solution, x64 as $solution"; exit 1; }
fi

printf '\nconsumer check passed\n'
