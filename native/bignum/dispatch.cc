#include "dispatch.h"

#include <atomic>
#include <vector>

#include "montgomery.h"
#include "primality.h"

namespace powprime::bignum {

// The bignum kernels, best first. Each is defined in its own file, which
// returns null where it was compiled without the kernel (another
// architecture or compiler). To add one: write its file with a BignumKernel
// and an accessor, then declare the accessor here and give it a row below;
// admission, the self-test, backendInfo() and setBignumKernel() follow.
const BignumKernel* ifma_kernel();      // mont_ifma.cc
const BignumKernel* adx_kernel();       // mont_adx.cc
const BignumKernel* portable_kernel();  // mont_portable.cc: never null, always usable
namespace {
const BignumKernel* (*const kTable[])() = {ifma_kernel, adx_kernel, portable_kernel};

// A Mersenne number 2^p − 1 as `words` words (zeros above).
std::vector<u64> mersenne(int p, int words) {
  std::vector<u64> m(size_t(words), 0);
  for (int i = 0; i < p; i++) m[size_t(i / 64)] |= u64(1) << (i % 64);
  return m;
}

// Known answers, on every path the kernel has (products at padded and
// unpadded widths, the whole exponentiation where it takes the size, the
// batched Fermat test), so a kernel the build or the CPU gets wrong is
// refused instead of giving wrong verdicts. A few ms in all, once per process.
bool self_test(const BignumKernel& k) {
  // For the Mersenne primes M = 2^p − 1: a^M ≡ a (mod M) (Fermat), and
  // 2^(p + 37) ≡ 2^37, since 2^p ≡ 1. 61 bits fits one word (padded up to
  // the kernel's width), 521 nine; 1279 lies in the IFMA exponentiation's
  // range, and is tried only where a kernel has one (it costs a millisecond).
  for (int p : {61, 89, 521, 1279}) {
    if (p == 1279 && !k.takes_exp(p)) continue;
    const int words = (p + 63) / 64;
    const std::vector<u64> m = mersenne(p, words);
    const Mont mont(m.data(), words, k);
    const int w = mont.width();
    std::vector<u64> base(size_t(w), 0), r(static_cast<size_t>(w), 0);
    for (int i = 0; i < words; i++) base[size_t(i)] = 0x0123456789abcdefull * u64(2 * i + 3);
    base[size_t(words - 1)] &= (u64(1) << ((p - 1) % 64)) - 1;  // below M
    mont.modexp(r.data(), base.data(), m.data(), words);
    if (!equal(r.data(), base.data(), w)) return false;
    const u64 e = u64(p) + 37;
    mont.pow2(r.data(), &e, 1);
    std::vector<u64> want(size_t(w), 0);
    want[0] = u64(1) << 37;
    if (!equal(r.data(), want.data(), w)) return false;
  }
  // Small numbers, whose padded width is furthest from their size: BPSW
  // alone (no trial division) against trial division here.
  for (u64 n = 3; n < 200; n += 2) {
    bool prime = true;
    for (u64 d = 3; d * d <= n; d += 2) prime = prime && n % d != 0;
    if (is_probable_prime(&n, 1, 0, /*trial=*/false, k) != prime) return false;
  }
  if (k.fermat) {
    // M_521 and M_607 prime; 341 = 11·31 a base-2 pseudoprime; 9 and 3·M_521 fail.
    const int words = 10;
    std::vector<u64> a = mersenne(521, words), b = mersenne(607, words), c(words, 0), d(words, 0), e(words, 0);
    c[0] = 341;
    d[0] = 9;
    add(e.data(), a.data(), a.data(), words);
    add(e.data(), e.data(), a.data(), words);
    // Ten, so that a kernel testing more than eight at once runs its wider path too.
    const u64* ns[] = {a.data(), c.data(), d.data(), e.data(), b.data(),
                       b.data(), e.data(), d.data(), c.data(), a.data()};
    const bool want[] = {true, true, false, false, true, true, false, false, true, true};
    constexpr int kCount = 10;
    bool out[kCount];
    for (int from = 0; from < kCount; from += k.fermat_lanes) {
      const int count = kCount - from < k.fermat_lanes ? kCount - from : k.fermat_lanes;
      k.fermat(ns + from, count, words, out + from);
    }
    for (int i = 0; i < kCount; i++)
      if (out[i] != want[i]) return false;
  }
  return true;
}

struct Registry {
  std::vector<const BignumKernel*> usable;
  std::vector<std::string> refused;
  std::atomic<const BignumKernel*> in_force{nullptr};
  Registry() {
    const CpuFeatures& cpu = cpu_features();
    for (const auto row : kTable) {
      const BignumKernel* k = row();
      if (!k) continue;
      if (!k->runs(cpu))
        refused.push_back(std::string(k->id) + ": " + k->missing);
      else if (!self_test(*k))
        refused.push_back(std::string(k->id) + ": self-test failed");
      else
        usable.push_back(k);
    }
    // The portable kernel is the floor: kept even if its self-test failed
    // (then listed as refused too), so the addon still answers.
    if (usable.empty() || usable.back() != portable_kernel()) usable.push_back(portable_kernel());
    in_force.store(usable.front());
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

const std::vector<const BignumKernel*>& usable_kernels() { return registry().usable; }
const std::vector<std::string>& refused_kernels() { return registry().refused; }
const BignumKernel& kernel_in_force() { return *registry().in_force.load(std::memory_order_acquire); }

const BignumKernel* use_kernel(const std::string& id) {
  Registry& r = registry();
  for (const BignumKernel* k : r.usable) {
    if (id != k->id) continue;
    r.in_force.store(k, std::memory_order_release);
    return k;
  }
  return nullptr;
}

const BignumKernel& use_best_kernel() {
  Registry& r = registry();
  r.in_force.store(r.usable.front(), std::memory_order_release);
  return *r.usable.front();
}

}  // namespace powprime::bignum
