/**
 * The one loader of the native addon. It returns the typed binding, or null with the reason
 * kept, and never throws: without the addon the library runs on the TS backend.
 *
 * Nothing loads at import: the first call of native() or nativeLoadError()
 * does, once per thread, so commands and pool tasks that do no native work
 * never load it. (Loading costs a dlopen; the kernels' self-tests and the PoW
 * timing run inside the addon at the first use of a kernel, once per process.)
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { jsAlone } from './backend-env.ts';
import { elfInterpreter } from './elf-interpreter.ts';
import type { NativeBinding } from './native-binding.ts';
import { packageRoot, packageVersion } from './package-root.ts';

let loaded: { binding: NativeBinding | null; error: string | null } | undefined;

/**
 * The C library the running Node links against on Linux. Its ELF interpreter
 * says it (ld-musl-* for musl); a static Node names none, and then only glibc
 * puts its runtime version in the process report. Never from files such as
 * /etc/alpine-release: a glibc Node can run on Alpine (gcompat) and a musl
 * Node anywhere.
 */
export function runningLibc(execPath = process.execPath): 'glibc' | 'musl' {
  try {
    const interpreter = elfInterpreter(execPath);
    if (interpreter !== null) return /\/ld-musl-/.test(interpreter) ? 'musl' : 'glibc';
  } catch {
    // Unreadable executable: the report below still knows.
  }
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime ? 'glibc' : 'musl';
}

/**
 * The prebuilt addon for this platform, named as node-gyp-build names them:
 * prebuilds/<platform>-<arch>/powprime.node, and powprime.musl.node beside it
 * for Linux on musl (the glibc one cannot load there).
 */
export function prebuildFile(): string {
  const name = process.platform === 'linux' && runningLibc() === 'musl' ? 'powprime.musl.node' : 'powprime.node';
  return path.join(packageRoot(), 'prebuilds', `${process.platform}-${process.arch}`, name);
}

/**
 * Where the addon may be, in order: POWPRIME_ADDON_PATH alone when set (a
 * sanitizer or test build), else the local build, then the prebuild for this
 * platform. Each place tried is kept with why it failed, for one warning.
 */
function load(): { binding: NativeBinding | null; error: string | null } {
  if (jsAlone()) return { binding: null, error: 'POWPRIME_BACKEND=js' };
  const explicit = process.env.POWPRIME_ADDON_PATH;
  // The prebuild's place depends on the C library, and telling that may take
  // a process report (tens of ms): asked only once the local build failed.
  const places: (() => string)[] = explicit ? [() => path.resolve(explicit)] : [() => path.join(packageRoot(), 'build', 'Release', 'powprime.node'), prebuildFile];
  const tried: string[] = [];
  const version = packageVersion();
  for (const place of places) {
    const file = place();
    if (!existsSync(file)) {
      tried.push(`${file}: missing`);
      continue;
    }
    try {
      const binding = createRequire(import.meta.url)(file) as NativeBinding;
      if (binding.version !== version) {
        tried.push(`${file}: built for powprime ${binding.version ?? '(unknown)'}, this is ${version}`);
        continue;
      }
      return { binding, error: null };
    } catch (err) {
      tried.push(`${file}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  // As the install script says: cmake-js is an optional peer, so a source build needs it installed too.
  const fix = 'to build it: install cmake, a C++17 compiler and cmake-js (`npm install cmake-js`), then run `npm rebuild powprime`';
  return { binding: null, error: `tried ${tried.join('; ')}; ${fix}` };
}

/** The native binding, or null (see nativeLoadError()). Loads the addon on the first call in this thread. */
export function native(): NativeBinding | null {
  loaded ??= load();
  return loaded.binding;
}

/**
 * The binding if this thread has loaded it already, else null; never loads.
 * For ways out of the process: one that did no native work has no native
 * computation to cut short, and loading the addon then would only delay it.
 */
export function nativeIfLoaded(): NativeBinding | null {
  return loaded?.binding ?? null;
}

/** Why native() is null, or null when it loaded. */
export function nativeLoadError(): string | null {
  loaded ??= load();
  return loaded.error;
}
