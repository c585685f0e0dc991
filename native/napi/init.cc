// The module's entry: registers every binding on the exports object, the
// test-only ones under `introspect`. The whole JavaScript surface of the
// addon is listed here, in one place.
#include <napi.h>

#include "napi/backend_info.h"
#include "napi/bignum.h"
#include "napi/files.h"
#include "napi/introspect.h"
#include "napi/process.h"
#include "napi/sha256.h"
#include "napi/sieve.h"

namespace {

// At global scope: NODE_API_MODULE pastes the function's name into another.
Napi::Object Init(Napi::Env env, Napi::Object exports) {
  using namespace powprime::napi;
  exports.Set("lockOpen", Napi::Function::New(env, LockOpen));
  exports.Set("lockClose", Napi::Function::New(env, LockClose));
  exports.Set("isProbablePrime", Napi::Function::New(env, IsProbablePrime));
  exports.Set("isSafePrime", Napi::Function::New(env, IsSafePrime));
  exports.Set("modPow", Napi::Function::New(env, ModPow));
  exports.Set("pow2Mod", Napi::Function::New(env, Pow2Mod));
  exports.Set("fermatBase2", Napi::Function::New(env, FermatBase2));
  exports.Set("SafePrimeSieve", DefineSafePrimeSieve(env));
  exports.Set("backendInfo", Napi::Function::New(env, BackendInfo));
  exports.Set("sha256", Napi::Function::New(env, Sha256));
  exports.Set("powSearch", Napi::Function::New(env, PowSearch));
  exports.Set("exitNow", Napi::Function::New(env, ExitNow));
  exports.Set("exitOnStopSignals", Napi::Function::New(env, ExitOnStopSignals));
  exports.Set("holdStopSignals", Napi::Function::New(env, HoldStopSignals));
  exports.Set("heldStopSignal", Napi::Function::New(env, HeldStopSignal));
  exports.Set("releaseStopSignals", Napi::Function::New(env, ReleaseStopSignals));
  exports.Set("readerGone", Napi::Function::New(env, ReaderGone));
  exports.Set("version", Napi::String::New(env, POWPRIME_VERSION));
  // For tests only, kept apart so that the library's own surface above is
  // what src/ may use (test/structure.test.ts holds src/ to it).
  Napi::Object introspect = Napi::Object::New(env);
  introspect.Set("tables", Napi::Function::New(env, Tables));
  introspect.Set("setBignumKernel", Napi::Function::New(env, SetBignumKernel));
  introspect.Set("sieveRoots", Napi::Function::New(env, SieveRoots));
  introspect.Set("deepPrimes", Napi::Function::New(env, DeepPrimes));
  introspect.Set("nativeMemory", Napi::Function::New(env, NativeMemory));
  exports.Set("introspect", introspect);
  return exports;
}

}  // namespace

NODE_API_MODULE(powprime, Init)
