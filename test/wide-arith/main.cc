// Feeds both branches of wide_arith.h the same words (random ones, with
// all-ones and zero words mixed in for the carries) and prints both digests.
#include <cstdint>
#include <cstdio>
extern "C" uint64_t run_msvc(const uint64_t*, int);
extern "C" uint64_t run_gcc(const uint64_t*, int);
int main() {
  static uint64_t x[200000];
  uint64_t s = 88172645463325252ull;  // xorshift64
  for (int i = 0; i < 200000; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x[i] = i % 7 == 0 ? ~0ull : i % 11 == 0 ? 0 : i % 13 == 0 ? s >> 40 : s;
  }
  std::printf("%016llx %016llx\n", (unsigned long long)run_msvc(x, 200000), (unsigned long long)run_gcc(x, 200000));
  return 0;
}
