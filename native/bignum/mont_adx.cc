#include "mont_adx.h"

#include "fermat_vertical_avx2.h"
#include "kernel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

namespace powprime::bignum {
namespace {

// The body of one row t[0..len) += x·y[0..len) (x in rdx), four words per
// turn: CF carries the low halves, OF the high half of the previous column;
// lea and jrcxz leave both flags alone. STOREk is where column k of the turn
// goes (the reduction row of a product writes column j to t[j−1], shifting t
// down a word as it goes). On exit t points at t[len] and hb holds the last
// column's high half, with CF and OF still pending.
#define POWPRIME_ROW4(STORE0, STORE1, STORE2, STORE3) \
  "xor %%eax, %%eax\n\t"                              \
  "xor %[hb], %[hb]\n\t"                              \
  "1:\n\t"                                            \
  "mulx 0(%[y]), %[lo], %[ha]\n\t"                    \
  "adcx 0(%[t]), %[lo]\n\t"                           \
  "adox %[hb], %[lo]\n\t"                             \
  "mov %[lo], " STORE0                                \
  "\n\t"                                              \
  "mulx 8(%[y]), %[lo], %[hb]\n\t"                    \
  "adcx 8(%[t]), %[lo]\n\t"                           \
  "adox %[ha], %[lo]\n\t"                             \
  "mov %[lo], " STORE1                                \
  "\n\t"                                              \
  "mulx 16(%[y]), %[lo], %[ha]\n\t"                   \
  "adcx 16(%[t]), %[lo]\n\t"                          \
  "adox %[hb], %[lo]\n\t"                             \
  "mov %[lo], " STORE2                                \
  "\n\t"                                              \
  "mulx 24(%[y]), %[lo], %[hb]\n\t"                   \
  "adcx 24(%[t]), %[lo]\n\t"                          \
  "adox %[ha], %[lo]\n\t"                             \
  "mov %[lo], " STORE3                                \
  "\n\t"                                              \
  "lea 32(%[t]), %[t]\n\t"                            \
  "lea 32(%[y]), %[y]\n\t"                            \
  "lea -4(%[c]), %[c]\n\t"                            \
  "jrcxz 2f\n\t"                                      \
  "jmp 1b\n\t"                                        \
  "2:\n\t"

// Column len: t[len] += hb + CF + OF, and the carries out into t[len+1]
// (a word that is zero or can absorb them).
#define POWPRIME_TAIL_ADD(AT0, AT1) \
  "mov " AT0                        \
  ", %[lo]\n\t"                     \
  "adcx %[hb], %[lo]\n\t"           \
  "mov $0, %[ha]\n\t"               \
  "adox %[ha], %[lo]\n\t"           \
  "mov %[lo], " AT0                 \
  "\n\t"                            \
  "mov " AT1                        \
  ", %[lo]\n\t"                     \
  "adcx %[ha], %[lo]\n\t"           \
  "adox %[ha], %[lo]\n\t"           \
  "mov %[lo], " AT1 "\n\t"

#define POWPRIME_OPERANDS \
  : [t] "+r"(t), [y] "+r"(y), [c] "+c"(c), [lo] "=&r"(lo), [ha] "=&r"(ha), [hb] "=&r"(hb) : "d"(x) : "rax", "cc", "memory"

// t[0..len] += x·y, carries into t[len+1]; len a multiple of 4.
inline void row_add(u64* t, const u64* y, u64 x, long len) {
  u64 lo, ha, hb;
  long c = len;
  __asm__ volatile(POWPRIME_ROW4("0(%[t])", "8(%[t])", "16(%[t])", "24(%[t])") POWPRIME_TAIL_ADD("0(%[t])", "8(%[t])")
                       POWPRIME_OPERANDS);
}

// Reduction row of the product: t += x·y, then t moves down one word (word 0
// is zero by the choice of x); buf[−1] must be writable.
inline void row_reduce_shift(u64* t, const u64* y, u64 x, long len) {
  u64 lo, ha, hb;
  long c = len;
  __asm__ volatile(POWPRIME_ROW4("-8(%[t])", "0(%[t])", "8(%[t])", "16(%[t])") POWPRIME_TAIL_ADD(
      "0(%[t])",
      "8(%[t])") "mov 0(%[t]), %[lo]\n\t"
                 "mov %[lo], -8(%[t])\n\t"
                 "mov 8(%[t]), %[lo]\n\t"
                 "mov %[lo], 0(%[t])\n\t"
                 "movq $0, 8(%[t])\n\t" POWPRIME_OPERANDS);
}

// t[0..len] += x·y for any len ≥ 1, carries into t[len+1]: len mod 4 single
// columns first, then the four-column loop, both on the same two carry chains.
inline void row_add_any(u64* t, const u64* y, u64 x, long len) {
  u64 lo, ha, hb;
  long c = len & 3;
  const long quads = len & ~3L;
  __asm__ volatile(
      "xor %%eax, %%eax\n\t"
      "xor %[hb], %[hb]\n\t"
      "jrcxz 4f\n\t"
      "3:\n\t"
      "mulx 0(%[y]), %[lo], %[ha]\n\t"
      "adcx 0(%[t]), %[lo]\n\t"
      "adox %[hb], %[lo]\n\t"
      "mov %[lo], 0(%[t])\n\t"
      "mov %[ha], %[hb]\n\t"
      "lea 8(%[t]), %[t]\n\t"
      "lea 8(%[y]), %[y]\n\t"
      "lea -1(%[c]), %[c]\n\t"
      "jrcxz 4f\n\t"
      "jmp 3b\n\t"
      "4:\n\t"
      "mov %[q], %[c]\n\t"
      "jrcxz 2f\n\t"
      "1:\n\t"
      "mulx 0(%[y]), %[lo], %[ha]\n\t"
      "adcx 0(%[t]), %[lo]\n\t"
      "adox %[hb], %[lo]\n\t"
      "mov %[lo], 0(%[t])\n\t"
      "mulx 8(%[y]), %[lo], %[hb]\n\t"
      "adcx 8(%[t]), %[lo]\n\t"
      "adox %[ha], %[lo]\n\t"
      "mov %[lo], 8(%[t])\n\t"
      "mulx 16(%[y]), %[lo], %[ha]\n\t"
      "adcx 16(%[t]), %[lo]\n\t"
      "adox %[hb], %[lo]\n\t"
      "mov %[lo], 16(%[t])\n\t"
      "mulx 24(%[y]), %[lo], %[hb]\n\t"
      "adcx 24(%[t]), %[lo]\n\t"
      "adox %[ha], %[lo]\n\t"
      "mov %[lo], 24(%[t])\n\t"
      "lea 32(%[t]), %[t]\n\t"
      "lea 32(%[y]), %[y]\n\t"
      "lea -4(%[c]), %[c]\n\t"
      "jrcxz 2f\n\t"
      "jmp 1b\n\t"
      "2:\n\t" POWPRIME_TAIL_ADD("0(%[t])", "8(%[t])")
      : [t] "+r"(t), [y] "+r"(y), [c] "+c"(c), [lo] "=&r"(lo), [ha] "=&r"(ha), [hb] "=&r"(hb)
      : "d"(x), [q] "r"(quads)
      : "rax", "cc", "memory");
}

// Reduction row of the square, in place on the double-width square: t[0..len]
// += x·y plus the carry `extra` left by the previous row; returns the new carry.
inline u64 row_reduce_carry(u64* t, const u64* y, u64 x, long len, u64 extra) {
  u64 lo, ha, hb;
  long c = len;
  __asm__ volatile(
      POWPRIME_ROW4("0(%[t])", "8(%[t])", "16(%[t])", "24(%[t])")
      // hb ≤ 2^64 − 2 (high half of a product) and extra ≤ 1: lea cannot overflow.
      "lea (%[hb], %[ex]), %[hb]\n\t"
      "mov 0(%[t]), %[lo]\n\t"
      "adcx %[hb], %[lo]\n\t"
      "mov $0, %[ha]\n\t"
      "adox %[ha], %[lo]\n\t"
      "mov %[lo], 0(%[t])\n\t"
      "mov $0, %[ex]\n\t"
      "setc %b[ha]\n\t"
      "seto %b[ex]\n\t"
      "add %[ha], %[ex]\n\t"
      : [t] "+r"(t), [y] "+r"(y), [c] "+c"(c), [lo] "=&r"(lo), [ha] "=&r"(ha), [hb] "=&r"(hb), [ex] "+r"(extra)
      : "d"(x)
      : "rax", "cc", "memory");
  return extra;
}

#undef POWPRIME_ROW4
#undef POWPRIME_TAIL_ADD
#undef POWPRIME_OPERANDS

}  // namespace

void mont_mul_adx(u64* r, const u64* a, const u64* b, const u64* n, u64 n0, int len) {
  // buf[0] takes the reduction row's discarded word 0; t = buf + 1 has len + 2 words.
  // Sized for the widest modulus, not this one: stack space costs nothing
  // until touched (only len + 3 words are), where a buffer sized per product
  // would be an allocation per product.
  u64 buf[kMaxLimbs + 3];
  std::memset(buf, 0, sizeof(u64) * size_t(len + 3));
  u64* t = buf + 1;
  for (int i = 0; i < len; i++) {
    row_add(t, b, a[i], len);
    row_reduce_shift(t, n, t[0] * n0, len);
  }
  final_sub(r, t, t[len], n, len);
}

void mont_sqr_adx(u64* r, const u64* a, const u64* n, u64 n0, int len) {
  // The double-width square: cross products once (rows of falling length),
  // doubled, plus the diagonal; then len reduction rows in place.
  u64 T[2 * kMaxLimbs + 2];  // 2·len + 2 words used; sized as buf above
  std::memset(T, 0, sizeof(u64) * size_t(2 * len + 2));
  for (int i = 0; i + 1 < len; i++) row_add_any(T + 2 * i + 1, a + i + 1, a[i], len - 1 - i);
  u64 carry = 0;
  for (int k = 0; k < 2 * len; k++) {
    const u64 v = T[k];
    T[k] = (v << 1) | carry;
    carry = v >> 63;
  }
  u64 c = 0;
  for (int i = 0; i < len; i++) {
    u64 hi;
    T[2 * i] = mul_add_add(a[i], a[i], T[2 * i], c, &hi);
    c = add_carry(T[2 * i + 1], hi, 0, &T[2 * i + 1]);
  }
  u64 extra = 0;
  for (int i = 0; i < len; i++) extra = row_reduce_carry(T + i, n, T[i] * n0, len, extra);
  final_sub(r, T + len, extra, n, len);
}

namespace {

Products adx_products(int) { return {mont_mul_adx, mont_sqr_adx}; }

// Rows of four words per turn: every width a multiple of 4.
constexpr BignumKernel kAdx = {
    "adx",
    "mulx/adx",
    /*pad=*/4,
    adx_products,
    /*exp_min_bits=*/0,
    /*exp_max_bits=*/0,
    nullptr,
    nullptr,
    nullptr,
    /*fermat_lanes=*/1,
    /*fermat_max_bits=*/0,
    nullptr,
};

// The same products, with the sieve's base-2 Fermat tests sixteen at a time
// in AVX2 lanes (fermat_vertical_avx2.h), for CPUs that have AVX2 but not
// AVX-512 IFMA; backendInfo() names it, as the IFMA kernel, by the lanes a
// register holds.
constexpr BignumKernel kAvx2 = {
    "avx2",
    "avx2 x4 + mulx/adx",
    /*pad=*/4,
    adx_products,
    /*exp_min_bits=*/0,
    /*exp_max_bits=*/0,
    nullptr,
    nullptr,
    nullptr,
    kAvx2Lanes,
    kAvx2MaxBits,
    fermat2_vertical_avx2,
};

}  // namespace

const BignumKernel* adx_kernel() { return &kAdx; }
const BignumKernel* avx2_kernel() { return &kAvx2; }

}  // namespace powprime::bignum

#else
namespace powprime::bignum {
const BignumKernel* adx_kernel() { return nullptr; }
const BignumKernel* avx2_kernel() { return nullptr; }
}  // namespace powprime::bignum
#endif
