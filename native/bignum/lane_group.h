// The shape the vector lane kernels (fermat_vertical.cc for AVX-512 IFMA,
// fermat_vertical_avx2.cc for AVX2) share: a group of lanes run as one,
// kCount independent registers of V with one number in each 64-bit lane, so
// that every dependent chain of a Montgomery product has others beside it
// to fill the multipliers. The arithmetic stays in each kernel's file,
// because it carries that kernel's target attribute.
#pragma once
#include <cstring>

#include "limbs.h"

namespace powprime::bignum {

// Reg names the register type as Reg::V (a vector type given straight as a
// template argument would lose its attributes, alignment among them).
template <class Reg, int kCount>
struct LaneGroup {
  using V = typename Reg::V;
  static constexpr int kRegs = kCount;
  // 64-bit lanes in one register.
  static constexpr int kRegLanes = int(sizeof(V) / sizeof(u64));
  V r[kCount];
};

// Digit j of every lane into group j (lane k in register k / kRegLanes).
// memcpy rather than a vector load, so that this needs no target attribute;
// it runs once a batch.
template <class G, int kMaxDigits>
inline void gather(G* dst, const u64 (*col)[kMaxDigits], int L) {
  for (int j = 0; j < L; j++)
    for (int i = 0; i < G::kRegs; i++) {
      u64 row[G::kRegLanes];
      for (int k = 0; k < G::kRegLanes; k++) row[k] = col[G::kRegLanes * i + k][j];
      std::memcpy(&dst[j].r[i], row, sizeof row);
    }
}

}  // namespace powprime::bignum
