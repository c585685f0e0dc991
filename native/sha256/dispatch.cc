#include "dispatch.h"

#include <cstring>

#include "../cpu_features.h"
#include "pow_search.h"

namespace powprime::sha256 {

void hash(const Kernel& kernel, const uint8_t* data, size_t len, uint8_t out[32]) {
  uint32_t h[8];
  std::memcpy(h, IV, sizeof h);
  const size_t whole = len / 64;
  kernel.compress(h, data, whole);
  uint8_t tail[128] = {};
  const size_t rest = len - whole * 64;
  // An empty message may come with data == nullptr, and memcpy from null is
  // undefined even for zero bytes.
  if (rest) std::memcpy(tail, data + whole * 64, rest);
  tail[rest] = 0x80;
  const size_t tail_blocks = rest + 9 <= 64 ? 1 : 2;
  const uint64_t bits = uint64_t(len) * 8;
  for (int i = 0; i < 8; i++) tail[tail_blocks * 64 - 1 - i] = uint8_t(bits >> (8 * i));
  kernel.compress(h, tail, tail_blocks);
  for (int i = 0; i < 8; i++) store_be32(out + 4 * i, h[i]);
}

namespace {

// FIPS 180-2 example: SHA-256("abc").
const uint8_t kAbcDigest[32] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
                                0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
                                0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};

bool self_test(const Kernel& k) {
  uint8_t out[32];
  hash(k, reinterpret_cast<const uint8_t*>("abc"), 3, out);
  if (std::memcmp(out, kAbcDigest, 32) != 0) return false;
  // The group search must find the same candidates as the scalar one, on
  // both group shapes and on ranges that do not fill whole lane batches.
  for (uint32_t end : {52u, 55u}) {
    PowJob job{};
    std::memcpy(job.mid, IV, sizeof job.mid);
    for (uint32_t i = 0; i < end; i++) job.block[i] = uint8_t('a' + i % 26);
    job.block[end] = 0x80;
    job.block[62] = uint8_t((end * 8) >> 8);
    job.block[63] = uint8_t(end * 8);
    job.digits_end = end;
    job.digits_count = 12;
    job.difficulty = 2;
    for (uint64_t start : {0ull, 3ull, 9997ull, 123457ull}) {
      if (pow_search(k, job, start, start + 5003) != pow_search(kScalar, job, start, start + 5003))
        return false;
    }
  }
  return true;
}

struct Registry {
  std::vector<const Kernel*> usable;
  std::vector<std::string> refused;
  Registry() {
    const CpuFeatures& cpu = cpu_features();
    const struct {
      const Kernel* kernel;
      bool runs;
      const char* missing;
    } candidates[] = {
        {shani_kernel(), cpu.sha_ni, "CPU lacks SHA-NI"},
        {avx2_kernel(), cpu.avx2, "CPU lacks AVX2"},
    };
    for (const auto& c : candidates) {
      if (!c.kernel) continue;
      if (!c.runs)
        refused.push_back(std::string(c.kernel->id) + ": " + c.missing);
      else if (!self_test(*c.kernel))
        refused.push_back(std::string(c.kernel->id) + ": self-test failed");
      else
        usable.push_back(c.kernel);
    }
    usable.push_back(&kScalar);
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

}  // namespace

const std::vector<const Kernel*>& usable_kernels() { return registry().usable; }
const std::vector<std::string>& refused_kernels() { return registry().refused; }
const Kernel& best_kernel() { return *registry().usable.front(); }

const Kernel& best_hasher() {
  for (const Kernel* k : registry().usable)
    if (k != avx2_kernel()) return *k;
  return kScalar;
}

const Kernel* kernel_by_name(const std::string& name) {
  for (const Kernel* k : registry().usable)
    if (name == k->id) return k;
  return nullptr;
}

}  // namespace powprime::sha256
