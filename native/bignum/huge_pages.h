// An allocator for the deep sieve's big arrays (the prime table and the
// roots, hundreds of MB past 2^28): on Linux it asks for transparent huge
// pages, since a first touch of 4 KiB pages cost as much as building the
// table itself on the virtual machines measured (a fault per page, several
// microseconds each), and 2 MiB pages take 512 times fewer. Elsewhere, and
// for small arrays, it is the plain allocator.
#pragma once
#include <cstddef>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace powprime::bignum {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHuge = size_t(1) << 21;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < 2 * kHuge) return static_cast<T*>(::operator new(bytes));
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = ::operator new(rounded, std::align_val_t(kHuge));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without huge pages the memory is still good
#endif
    return static_cast<T*>(p);
  }

  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < 2 * kHuge)
      ::operator delete(p);
    else
      ::operator delete(p, std::align_val_t(kHuge));
  }

  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const {
    return false;
  }
};

// Empties v and frees its memory. `v = {}` would not: it is the
// initializer-list assignment, which keeps the capacity.
template <class V>
void release(V& v) {
  V().swap(v);
}

}  // namespace powprime::bignum
