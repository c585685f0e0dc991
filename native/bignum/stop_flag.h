// A request to stop, set by another thread in one 64-bit word this code did
// not create: the element of a JavaScript BigUint64Array over a
// SharedArrayBuffer, which the other side writes with Atomics.store.
//
// Why not std::atomic<uint64_t>*: treating plain storage as an atomic object
// is undefined in C++17, and std::atomic_ref (made for exactly this) needs
// C++20, which the build does not ask of every compiler. The compilers' own
// atomic loads on plain objects are defined, and compile to one ordinary
// load on x86-64 and arm64.
#pragma once
#include <cstdint>
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

namespace powprime::bignum {

class StopFlag {
 public:
  // Never raised.
  StopFlag() = default;
  // word: 8-byte aligned (a BigUint64Array's element is), alive while searched.
  explicit StopFlag(const uint64_t* word) : word_(word) {}

  // Relaxed: the flag carries no other data, it only has to be seen soon.
  bool raised() const {
    if (!word_) return false;
#if defined(_MSC_VER) && !defined(__clang__)
    // MSVC's documented single-copy-atomic load (what its <atomic> uses).
    return __iso_volatile_load64(reinterpret_cast<const volatile __int64*>(word_)) != 0;
#else
    return __atomic_load_n(word_, __ATOMIC_RELAXED) != 0;
#endif
  }

 private:
  const uint64_t* word_ = nullptr;
};

}  // namespace powprime::bignum
