// The portable kernel: Montgomery products in plain C++ on 64-bit words,
// for every CPU and every width. Common widths (512…3072 bits) get
// compile-time-width instantiations; wider ones run the generic loops, which
// measured as fast there.
#include "kernel.h"

namespace powprime::bignum {
namespace {

// Montgomery product by product scanning with the reduction folded into the
// same columns (Koç's FIPS): the word products of a column are independent,
// so they overlap in the pipeline instead of waiting on one carry chain.
// N > 0: width fixed at compile time; N == 0: width len_rt.
template <int N>
void mont_mul(u64* r, const u64* a, const u64* b, const u64* n, u64 n0, int len_rt) {
  const int len = N ? N : len_rt;
  // Sized for the widest modulus, not this one: stack space costs nothing
  // until touched (only len words are), where a buffer sized per product
  // would be an allocation per product.
  u64 m[N ? N : kMaxLimbs];
  u64 t[N ? N : kMaxLimbs];
  Column col;  // the column being summed, with the carries of the ones before
  for (int i = 0; i < len; i++) {
#pragma GCC unroll 8
    for (int j = 0; j < i; j++) {
      col.mac(a[j], b[i - j]);
      col.mac(m[j], n[i - j]);
    }
    col.mac(a[i], b[0]);
    m[i] = col.low() * n0;
    col.mac(m[i], n[0]);
    col.shift();
  }
  for (int i = len; i < 2 * len; i++) {
#pragma GCC unroll 8
    for (int j = i - len + 1; j < len; j++) {
      col.mac(a[j], b[i - j]);
      col.mac(m[j], n[i - j]);
    }
    t[i - len] = col.low();
    col.shift();
  }
  final_sub(r, t, col.low(), n, len);
}

// Squaring: each cross product a[j]·a[k] (j < k) is computed once and the
// column's cross sum doubled, then the square term and the reduction added.
template <int N>
void mont_sqr(u64* r, const u64* a, const u64* n, u64 n0, int len_rt) {
  const int len = N ? N : len_rt;
  u64 m[N ? N : kMaxLimbs];
  u64 t[N ? N : kMaxLimbs];
  Column col;
  for (int i = 0; i < 2 * len; i++) {
    const int jlo = i < len ? 0 : i - len + 1;
    Column cross;
    for (int j = jlo; j < i - j; j++) cross.mac(a[j], a[i - j]);
    col.add_twice(cross);
    if (!(i & 1)) col.mac(a[i / 2], a[i / 2]);
    const int jm = i < len ? i : len;
    for (int j = jlo; j < jm; j++) col.mac(m[j], n[i - j]);
    if (i < len) {
      m[i] = col.low() * n0;
      col.mac(m[i], n[0]);
    } else {
      t[i - len] = col.low();
    }
    col.shift();
  }
  final_sub(r, t, col.low(), n, len);
}

Products products_for(int width) {
  Products p{mont_mul<0>, mont_sqr<0>};
  switch (width) {
#define POWPRIME_WIDTH(W)           \
  case W:                           \
    p = {mont_mul<W>, mont_sqr<W>}; \
    break;
    POWPRIME_WIDTH(8)
    POWPRIME_WIDTH(16)
    POWPRIME_WIDTH(24)
    POWPRIME_WIDTH(32)
    POWPRIME_WIDTH(48)
#undef POWPRIME_WIDTH
    default:
      break;
  }
  // Below 3072 bits the squaring's irregular column loops cost more than the
  // cross products they save (measured: 2048-bit pow2 2.0 ms through mul,
  // 2.3 ms through sqr; 4096-bit 16.0 vs 14.5 ms), so squares go through mul there.
  if (width < 48) p.sqr = nullptr;
  return p;
}

constexpr BignumKernel kPortable = {
    "portable",
    "portable",
    /*pad=*/1,
    products_for,
    /*exp_min_bits=*/0,
    /*exp_max_bits=*/0,
    nullptr,
    nullptr,
    nullptr,
    /*fermat_lanes=*/1,
    /*fermat_max_bits=*/0,
    nullptr,
};

}  // namespace

const BignumKernel* portable_kernel() { return &kPortable; }

}  // namespace powprime::bignum
