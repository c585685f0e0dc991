// The WebAssembly modular exponentiation kernel of the TS prime backend:
// base^e mod m and 2^e mod m for odd m of up to 16384 bits (MAX_SEARCH_BITS),
// by Montgomery multiplication on 30-bit digits with 64-bit products. Used by
// src/prime/wasm-bignum.ts only where a timing at first use finds it faster
// than BigInt. Freestanding C: no libc, no imports, a fixed memory that never
// grows. Built by scripts/build-wasm.mjs.
//
// Why 30-bit digits: WebAssembly has no 64x64->128 product and no add with
// carry, so 32-bit limbs need a carry chain per product. A 30-bit product is
// below 2^60 and sixteen of them fit one u64, so a column of the product
// (product scanning) is summed with plain adds, its carry taken once per
// twelve digits. That is what lets SIMD128 help: i64x2.extmul_{low,high}
// make four products of two v128 loads, summed in the vector. Measured on
// Node 20 against BigInt: scalar 32-bit CIOS and scalar 30-bit columns were
// both about 1.0-1.1x; this is about 1.6-2x from 512 to 8192 bits.
// R = 2^(30n) > 16m, so Montgomery results below 2m are used again without
// the final subtraction, and doubling needs none either. Not constant-time:
// it checks public numbers for primality.
//
// The host writes m, the base (< m) and e (> 0) as little-endian 32-bit limbs
// into bn_io(), calls bn_modpow or bn_pow2mod, and reads the result from out.
#include <stdint.h>
#include <wasm_simd128.h>

#define MAX_LIMBS 512  // 32-bit limbs at the boundary: 16384 bits
#define W 30
#define MASK ((1u << W) - 1)
#define MAX_DIGITS 548  // 30-bit digits of 16384 + 4 bits
// Sliding windows of up to 6 bits, as src/prime/tuning.ts's windowBits: 32 odd powers.
#define MAX_WINDOW 6

struct BnIo {
  uint32_t m[MAX_LIMBS];
  uint32_t base[MAX_LIMBS];
  uint32_t e[MAX_LIMBS];
  uint32_t out[MAX_LIMBS];
};
static struct BnIo io;

__attribute__((export_name("bn_io"))) struct BnIo* bn_io(void) { return &io; }

static int n32;      // 32-bit limbs of m
static int n;        // 30-bit digits of R
static uint32_t mi;  // -m^-1 mod 2^30
// Every digit array has PAD digits past n that are kept zero: column() reads them.
#define PAD 4
static uint32_t m30[MAX_DIGITS + PAD];
static uint32_t mrev[MAX_DIGITS + PAD];                          // m's digits in reverse
static uint32_t brev[MAX_DIGITS + PAD];                          // mont_mul's b in reverse
static uint32_t q[MAX_DIGITS + PAD];                             // the Montgomery quotient digits of one product
static uint32_t x32[MAX_LIMBS];                                  // 2R mod m, fully reduced, in 32-bit limbs
static uint32_t table[1 << (MAX_WINDOW - 1)][MAX_DIGITS + PAD];  // base^1, base^3, ... in Montgomery form
static uint32_t acc[MAX_DIGITS + PAD];
static uint32_t one[MAX_DIGITS + PAD];

#define MUL(x, y) ((uint64_t)(x) * (y))

// x = 2x mod m in 32-bit limbs, for x < m: only in the setup.
static void mod_double(uint32_t* x) {
  const uint32_t* m = io.m;
  uint32_t carry = 0;
  for (int j = 0; j < n32; j++) {
    const uint32_t v = x[j];
    x[j] = (v << 1) | carry;
    carry = v >> 31;
  }
  int ge = carry != 0;
  if (!ge) {
    ge = 1;  // equal counts as at least
    for (int j = n32 - 1; j >= 0; j--) {
      if (x[j] != m[j]) {
        ge = x[j] > m[j];
        break;
      }
    }
  }
  if (!ge) return;
  uint64_t borrow = 0;
  for (int j = 0; j < n32; j++) {
    const uint64_t d = (uint64_t)x[j] - m[j] - borrow;
    x[j] = (uint32_t)d;
    borrow = (d >> 32) & 1;
  }
}

// 32-bit limbs (n32 of them) to n 30-bit digits.
static void to30(uint32_t* d, const uint32_t* s) {
  for (int k = 0; k < n; k++) {
    const int bit = W * k, j = bit >> 5, off = bit & 31;
    uint32_t v = j < n32 ? s[j] >> off : 0;
    if (off > 32 - W && j + 1 < n32) v |= s[j + 1] << (32 - off);
    d[k] = v & MASK;
  }
}

// n 30-bit digits (value below 2^(32 n32)) to n32 32-bit limbs.
static void from30(uint32_t* s, const uint32_t* d) {
  for (int j = 0; j < n32; j++) {
    const int bit = 32 * j, k = bit / W, off = bit % W;
    uint32_t v = k < n ? d[k] >> off : 0;
    if (k + 1 < n) v |= d[k + 1] << (W - off);
    if (off > 2 * W - 32 && k + 2 < n) v |= d[k + 2] << (2 * W - off);
    s[j] = v;
  }
}

// One column of a product: the sum over i < len of x[i]*xr[i] + y[i]*yr[i],
// where xr and yr are the other factors stored in reverse, so that both run
// upwards and one v128 load takes four digits. extmul gives the four 60-bit
// products in two u64x2; each lane takes four per step and at most sixteen
// before its carry out of the low 30 bits is moved to `h`. Reads up to three
// digits past len, which the callers keep zero in one factor or the other.
// Returns the low part (below 2^31) and sets *hi, the sum being *hi*2^30 + low.
static uint64_t column(const uint32_t* x, const uint32_t* xr, const uint32_t* y, const uint32_t* yr, int len,
                       uint64_t* hi) {
  const v128_t mask = wasm_i64x2_splat(MASK);
  v128_t s = wasm_i64x2_splat(0), h = wasm_i64x2_splat(0);
#define STEP4(i)                                                                                                  \
  {                                                                                                               \
    const v128_t a = wasm_v128_load(x + (i)), b = wasm_v128_load(xr + (i));                                       \
    const v128_t c = wasm_v128_load(y + (i)), d = wasm_v128_load(yr + (i));                                       \
    s = wasm_i64x2_add(s, wasm_i64x2_add(wasm_u64x2_extmul_low_u32x4(a, b), wasm_u64x2_extmul_high_u32x4(a, b))); \
    s = wasm_i64x2_add(s, wasm_i64x2_add(wasm_u64x2_extmul_low_u32x4(c, d), wasm_u64x2_extmul_high_u32x4(c, d))); \
  }
#define CARRY()                                  \
  {                                              \
    h = wasm_i64x2_add(h, wasm_u64x2_shr(s, W)); \
    s = wasm_v128_and(s, mask);                  \
  }
  int i = 0;
  for (; i + 12 <= len; i += 12) {
    STEP4(i)
    STEP4(i + 4)
    STEP4(i + 8)
    CARRY()
  }
  for (; i < len; i += 4) STEP4(i)
  CARRY()
#undef STEP4
#undef CARRY
  *hi = wasm_u64x2_extract_lane(h, 0) + wasm_u64x2_extract_lane(h, 1);
  return wasm_u64x2_extract_lane(s, 0) + wasm_u64x2_extract_lane(s, 1);
}

// r = a*b/R mod m, below 2m, for a, b < 4m (R > 16m): product scanning, the
// product's columns and the quotient's summed together. r may be a or b: b is
// copied first, and digit k-n of r is written after the last column that reads it.
// Squares go here too: a squaring that takes each cross product once (an exact-length dot of
// the cross products and one of the quotient's a column) measured about half this speed.
__attribute__((noinline)) static void mont_mul(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  for (int k = 0; k < n; k++) brev[n - 1 - k] = b[k];
  for (int k = 0; k < n + PAD; k++) q[k] = 0;  // q[k..] are zero while column k reads them
  uint64_t carry = 0, hi;
  for (int k = 0; k < n; k++) {
    uint64_t lo = column(a, brev + n - 1 - k, q, mrev + n - 1 - k, k + 1, &hi) + carry;
    const uint32_t qk = ((uint32_t)lo * mi) & MASK;
    q[k] = qk;
    lo += MUL(qk, m30[0]);  // now 0 mod 2^30
    carry = hi + (lo >> W);
  }
  for (int k = n; k < 2 * n - 1; k++) {
    const int i0 = k - n + 1;
    const uint64_t lo = column(a + i0, brev, q + i0, mrev, 2 * n - 1 - k, &hi) + carry;
    r[k - n] = (uint32_t)lo & MASK;
    carry = hi + (lo >> W);
  }
  r[n - 1] = (uint32_t)carry;
}

// x = 2x for x < 2m: below 4m < R, which the next product takes.
static void double30(uint32_t* x) {
  uint32_t carry = 0;
  for (int k = 0; k < n; k++) {
    const uint32_t v = (x[k] << 1) | carry;
    x[k] = v & MASK;
    carry = v >> W;
  }
}

static int bit(const uint32_t* e, int i) { return (e[i >> 5] >> (i & 31)) & 1; }

static int bit_length(const uint32_t* x, int limbs) {
  for (int j = limbs - 1; j >= 0; j--)
    if (x[j]) return 32 * j + 32 - __builtin_clz(x[j]);
  return 0;
}

// Sets the sizes, mi and m30 for m, and acc = 2R mod m (2 in Montgomery form)
// by doubling 2^(bits-1) < m at most 35 times.
static void setup(int limbs) {
  n32 = limbs;
  const int bits = bit_length(io.m, n32);
  n = (bits + 4 + W - 1) / W;
  uint32_t inv = io.m[0];  // m*inv = 1 mod 2^3; each Newton step doubles the bits
  for (int i = 0; i < 4; i++) inv *= 2 - io.m[0] * inv;
  mi = -inv & MASK;
  to30(m30, io.m);
  for (int k = 0; k < n; k++) mrev[n - 1 - k] = m30[k];
  for (int k = n; k < n + PAD; k++) {
    mrev[k] = brev[k] = acc[k] = one[k] = 0;
    for (int t = 0; t < 1 << (MAX_WINDOW - 1); t++) table[t][k] = 0;
  }
  for (int j = 0; j < n32; j++) x32[j] = 0;
  x32[(bits - 1) >> 5] = 1u << ((bits - 1) & 31);
  for (int i = bits - 1; i < W * n + 1; i++) mod_double(x32);
  to30(acc, x32);
}

// acc = 2^e in Montgomery form (2^e R mod m, below 4m) from acc = 2R mod m,
// e > 0, by squaring and doubling (doubling commutes with /R).
static void pow2_walk(const uint32_t* e, int nb) {
  for (int i = nb - 2; i >= 0; i--) {
    mont_mul(acc, acc, acc);
    if (bit(e, i)) double30(acc);
  }
}

// out = acc/R mod m, fully reduced, in 32-bit limbs.
static void finish(void) {
  for (int k = 0; k < n; k++) one[k] = 0;
  one[0] = 1;
  mont_mul(acc, acc, one);  // below m + 1: acc < 4m, one = 1
  int ge = 1;
  for (int k = n - 1; k >= 0; k--) {
    if (acc[k] != m30[k]) {
      ge = acc[k] > m30[k];
      break;
    }
  }
  if (ge) {
    uint32_t borrow = 0;
    for (int k = 0; k < n; k++) {
      const uint32_t d = acc[k] - m30[k] - borrow;
      acc[k] = d & MASK;
      borrow = d >> 31;
    }
  }
  from30(io.out, acc);
}

static int window_bits(int bits) { return bits > 1536 ? 6 : bits > 512 ? 5 : bits > 128 ? 4 : bits > 32 ? 3 : 1; }

// base^e mod m; m odd and above 1 in mLimbs limbs (top limb nonzero), base < m, e > 0 in eLimbs limbs.
__attribute__((export_name("bn_modpow"))) void bn_modpow(int mLimbs, int eLimbs) {
  setup(mLimbs);
  // R^2 mod m is 2^(30n) in Montgomery form: a dozen products, where doubling up to it took 2·bits modular doublings.
  const uint32_t e30n = W * n;
  pow2_walk(&e30n, bit_length(&e30n, 1));
  to30(table[0], io.base);
  mont_mul(table[0], table[0], acc);
  const int nb = bit_length(io.e, eLimbs);
  const int w = window_bits(nb);
  mont_mul(acc, table[0], table[0]);
  for (int i = 1; i < 1 << (w - 1); i++) mont_mul(table[i], table[i - 1], acc);
  // Left to right: a window starts at a 1 bit, ends at a 1 bit, spans at most w bits.
  int i = nb - 1;
  int started = 0;
  while (i >= 0) {
    if (!bit(io.e, i)) {
      mont_mul(acc, acc, acc);  // started: the top bit is 1
      i--;
      continue;
    }
    int j = i - w + 1 < 0 ? 0 : i - w + 1;
    while (!bit(io.e, j)) j++;
    int val = 0;
    for (int k = i; k >= j; k--) val = (val << 1) | bit(io.e, k);
    if (started) {
      for (int k = i; k >= j; k--) mont_mul(acc, acc, acc);
      mont_mul(acc, acc, table[val >> 1]);
    } else {
      for (int k = 0; k < n; k++) acc[k] = table[val >> 1][k];
      started = 1;
    }
    i = j - 1;
  }
  finish();
}

// 2^e mod m by squaring and doubling in Montgomery form (doubling commutes with /R).
__attribute__((export_name("bn_pow2mod"))) void bn_pow2mod(int mLimbs, int eLimbs) {
  setup(mLimbs);
  pow2_walk(io.e, bit_length(io.e, eLimbs));
  finish();
}
