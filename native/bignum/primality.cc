#include "primality.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "../sha256/dispatch.h"
#include "fermat_vertical.h"
#include "mont_ifma.h"
#include "small_primes.h"

namespace powprime::bignum {

int default_rounds(int bits) {
  if (bits <= kBpswExactBits) return 0;
  for (const RoundsRow& row : kDefaultRounds)
    if (bits >= row.min_bits) return row.rounds;
  return kDefaultRounds[std::size(kDefaultRounds) - 1].rounds;
}

namespace {

// A value of up to kMaxLimbs words, plus one for the carry of n + 1 in the
// Lucas test (d.w[n]) when n fills all kMaxLimbs words.
struct Num {
  u64 w[kMaxLimbs + 1];
};

// n − 1 = d·2^s for the strong test; d written to d (same width as n).
int split_minus_one(const Mont& m, u64* d) {
  const int n = m.limbs();
  sub_small(d, m.modulus(), 1, n);
  int s = 0;
  while (!(d[0] & 1)) {
    shr1(d, d, n);
    s++;
  }
  return s;
}

// The strong test on x = base^d: passes if x = ±1 or x^(2^r) = −1 for some r < s.
bool strong_tail(const Mont& m, u64* x, int s) {
  const int n = m.limbs();
  Num minus_one;
  sub(minus_one.w, m.modulus(), m.one(), n);
  if (equal(x, m.one(), n) || equal(x, minus_one.w, n)) return true;
  for (int r = 1; r < s; r++) {
    m.sqr(x, x);
    if (equal(x, minus_one.w, n)) return true;
    if (equal(x, m.one(), n)) return false;
  }
  return false;
}

// Jacobi symbol (a/n) for a small signed a and odd n > 1.
int jacobi_small(int64_t a, const u64* n, int limbs) {
  int result = 1;
  const uint32_t n_mod8 = uint32_t(n[0] & 7);
  if (a < 0) {
    a = -a;
    if ((n[0] & 3) == 3) result = -result;
  }
  uint64_t x = uint64_t(a);
  while (x % 2 == 0) {
    x /= 2;
    if (n_mod8 == 3 || n_mod8 == 5) result = -result;
  }
  if (x == 1) return result;
  // Reciprocity: (x/n) = (n/x)·(−1)^((x−1)/2·(n−1)/2) for odd x, then small numbers.
  if ((x & 3) == 3 && (n[0] & 3) == 3) result = -result;
  uint64_t nn = x;
  uint64_t aa = mod_small(n, limbs, uint32_t(x));
  while (aa != 0) {
    while (aa % 2 == 0) {
      aa /= 2;
      if (nn % 8 == 3 || nn % 8 == 5) result = -result;
    }
    const uint64_t t = aa;
    aa = nn;
    nn = t;
    if (aa % 4 == 3 && nn % 4 == 3) result = -result;
    aa %= nn;
  }
  return nn == 1 ? result : 0;
}

// Exact square test, bit by bit (only reached when no Selfridge D is found quickly).
bool is_square(const u64* a, int limbs) {
  Num x, res, bitv, t;
  std::memcpy(x.w, a, sizeof(u64) * limbs);
  std::memset(res.w, 0, sizeof(u64) * limbs);
  std::memset(bitv.w, 0, sizeof(u64) * limbs);
  int top = bit_length(a, limbs) - 1;
  if (top < 0) return true;
  top &= ~1;
  bitv.w[top >> 6] = u64(1) << (top & 63);
  while (!is_zero(bitv.w, limbs)) {
    add(t.w, res.w, bitv.w, limbs);
    if (cmp(x.w, t.w, limbs) >= 0) {
      sub(x.w, x.w, t.w, limbs);
      shr1(res.w, res.w, limbs);
      add(res.w, res.w, bitv.w, limbs);
    } else {
      shr1(res.w, res.w, limbs);
    }
    shr1(bitv.w, bitv.w, limbs);
    shr1(bitv.w, bitv.w, limbs);
  }
  return is_zero(x.w, limbs);
}

// Montgomery form of a small signed value.
void small_to_mont(const Mont& m, int64_t v, u64* out) {
  const int n = m.limbs();
  Num t;
  std::memset(t.w, 0, sizeof(u64) * n);
  t.w[0] = uint64_t(v < 0 ? -v : v);
  m.to_mont(out, t.w);
  if (v < 0 && !is_zero(out, n)) sub(out, m.modulus(), out, n);
}

}  // namespace

bool strong_probable_prime_base2(const Mont& m) {
  Num d, x;
  const int s = split_minus_one(m, d.w);
  m.pow2(x.w, d.w, m.limbs());
  return strong_tail(m, x.w, s);
}

bool fermat_base2(const Mont& m) {
  Num e, x;
  sub_small(e.w, m.modulus(), 1, m.limbs());
  m.pow2(x.w, e.w, m.limbs());
  return equal(x.w, m.one(), m.limbs());
}

int fermat_base2_lanes(int bits) {
  return bignum_kernel() == MulKernel::ifma && fermat2_vertical_takes(bits) ? kVerticalLanes : 1;
}

void fermat_base2_many(const u64* const* n, int count, int limbs, bool* out) {
  bool together = true;
  for (int k = 0; together && k < count; k++) together = fermat_base2_lanes(bit_length(n[k], limbs)) > 1;
  if (together) {
    for (int k = 0; k < count; k += kVerticalLanes) fermat2_vertical(n + k, std::min(kVerticalLanes, count - k), limbs, out + k);
    return;
  }
  for (int k = 0; k < count; k++) {
    const int w = trimmed(n[k], limbs);
    out[k] = fermat_base2(Mont(n[k], w));
  }
}

bool strong_lucas_probable_prime(const Mont& m) {
  const int n = m.limbs();
  const u64* N = m.modulus();
  // Selfridge's method A: the first D in 5, −7, 9, −11, … with (D/n) = −1.
  int64_t D = 5;
  for (int tries = 0;; tries++) {
    const int j = jacobi_small(D, N, n);
    if (j == -1) break;
    if (j == 0) {
      // gcd(|D|, n) > 1: n is composite unless n = |D|.
      const u64 absd = uint64_t(D < 0 ? -D : D);
      return n == 1 && N[0] == absd;
    }
    if (tries == 8 && is_square(N, n)) return false;
    D = D > 0 ? -(D + 2) : -D + 2;
  }
  const int64_t Q = (1 - D) / 4;  // P = 1
  // n + 1 = d·2^s
  Num d;
  const u64 carry = add_small(d.w, N, 1, n);
  int dl = n;
  if (carry) {
    d.w[n] = 1;
    dl = n + 1;
  }
  int s = 0;
  while (!(d.w[0] & 1)) {
    shr1(d.w, d.w, dl);
    s++;
  }
  dl = trimmed(d.w, dl);
  Num U, V, Qk, Dm, Qm, t, u2;
  small_to_mont(m, D, Dm.w);
  small_to_mont(m, Q, Qm.w);
  std::memcpy(U.w, m.one(), sizeof(u64) * n);   // U_1 = 1
  std::memcpy(V.w, m.one(), sizeof(u64) * n);   // V_1 = P = 1
  std::memcpy(Qk.w, Qm.w, sizeof(u64) * n);     // Q^1
  for (int i = bit_length(d.w, dl) - 2; i >= 0; i--) {
    // k → 2k: U = U·V, V = V² − 2Q^k, Q^k = (Q^k)²
    m.mul(U.w, U.w, V.w);
    m.sqr(V.w, V.w);
    m.dbl(t.w, Qk.w);
    m.sub(V.w, V.w, t.w);
    m.sqr(Qk.w, Qk.w);
    if (bit(d.w, i)) {
      // 2k → 2k+1: U' = (U + V)/2, V' = (D·U + V)/2, Q^k·Q
      m.mul(t.w, Dm.w, U.w);
      m.add(u2.w, U.w, V.w);
      m.half(U.w, u2.w);
      m.add(t.w, t.w, V.w);
      m.half(V.w, t.w);
      m.mul(Qk.w, Qk.w, Qm.w);
    }
  }
  if (is_zero(U.w, n) || is_zero(V.w, n)) return true;
  for (int r = 1; r < s; r++) {
    m.sqr(V.w, V.w);
    m.dbl(t.w, Qk.w);
    m.sub(V.w, V.w, t.w);
    if (is_zero(V.w, n)) return true;
    m.sqr(Qk.w, Qk.w);
  }
  return false;
}

bool miller_rabin_derived(const Mont& m, int i) {
  const int n = m.limbs();
  const u64* N = m.modulus();
  // base = 2 + (SHA-256(n as minimal big-endian bytes ‖ be32(i)) mod (n − 3)).
  std::vector<uint8_t> msg;
  const int nbits = bit_length(N, n);
  for (int b = (nbits + 7) / 8 - 1; b >= 0; b--) msg.push_back(uint8_t(N[b / 8] >> (8 * (b % 8))));
  for (int k = 3; k >= 0; k--) msg.push_back(uint8_t(uint32_t(i) >> (8 * k)));
  uint8_t h[32];
  sha256::hash(sha256::best_hasher(), msg.data(), msg.size(), h);
  Num hv, mod3, base, bm, d, x;
  std::memset(hv.w, 0, sizeof(u64) * (n > 4 ? n : 4));
  for (int k = 0; k < 32; k++) hv.w[(31 - k) / 8] |= u64(h[k]) << (8 * ((31 - k) % 8));
  sub_small(mod3.w, N, 3, n);
  const int w = n > 4 ? n : 4;
  if (n < 4) std::memset(mod3.w + n, 0, sizeof(u64) * (4 - n));
  // hv mod (n − 3), bit by bit (hv has 256 bits, so this is short).
  std::memset(base.w, 0, sizeof(u64) * w);
  for (int b = 255; b >= 0; b--) {
    u64 top = base.w[w - 1] >> 63;
    for (int k = w - 1; k > 0; k--) base.w[k] = (base.w[k] << 1) | (base.w[k - 1] >> 63);
    base.w[0] = (base.w[0] << 1) | u64(bit(hv.w, b));
    if (top || cmp(base.w, mod3.w, w) >= 0) sub(base.w, base.w, mod3.w, w);
  }
  add_small(base.w, base.w, 2, n);
  m.to_mont(bm.w, base.w);
  const int s = split_minus_one(m, d.w);
  m.pow(x.w, bm.w, d.w, n);
  return strong_tail(m, x.w, s);
}

bool is_probable_prime(const u64* n_in, int limbs, int rounds, bool trial) {
  const int n = trimmed(n_in, limbs);
  if (n == 1 && n_in[0] < 4) return n_in[0] >= 2;
  if (!(n_in[0] & 1)) return false;
  if (trial) {
    for (uint32_t r : trial_primes()) {
      if (n == 1 && n_in[0] == r) return true;
      if (mod_small(n_in, n, r) == 0) return false;
    }
  }
  const Mont m(n_in, n);
  if (!strong_probable_prime_base2(m)) return false;
  if (!strong_lucas_probable_prime(m)) return false;
  const int bits = bit_length(n_in, n);
  const int k = rounds < 0 ? default_rounds(bits) : rounds;
  for (int i = 0; i < k; i++)
    if (!miller_rabin_derived(m, i)) return false;
  return true;
}

bool is_safe_prime(const u64* p_in, int limbs, int rounds) {
  const int n = trimmed(p_in, limbs);
  if (n == 1 && (p_in[0] == 5 || p_in[0] == 7)) return true;
  if (n == 1 && p_in[0] < 5) return false;
  if ((p_in[0] & 3) != 3) return false;
  if (mod_small(p_in, n, 3) == 0) return false;
  Num q;
  shr1(q.w, p_in, n);
  if (!is_probable_prime(q.w, n, rounds)) return false;
  const Mont m(p_in, n);
  return fermat_base2(m);
}

}  // namespace powprime::bignum
