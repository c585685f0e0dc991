#include "primality.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "../sha256/dispatch.h"
#include "small_primes.h"

namespace powprime::bignum {

int default_rounds(int bits) {
  if (bits <= kBpswExactBits) return 0;
  for (const RoundsRow& row : kDefaultRounds)
    if (bits >= row.min_bits) return row.rounds;
  return kDefaultRounds[std::size(kDefaultRounds) - 1].rounds;
}

namespace {

// n − 1 = d·2^s for the strong test; d written to d (m.width() words).
int split_minus_one(const Mont& m, u64* d) {
  const int n = m.width();
  sub_small(d, m.modulus(), 1, n);
  int s = 0;
  while (!(d[0] & 1)) {
    shr1(d, d, n);
    s++;
  }
  return s;
}

bool is_plain_one(const u64* x, int n) { return x[0] == 1 && (n == 1 || is_zero(x + 1, n - 1)); }

// The strong test on the plain x = base^d: passes if x = ±1 or x^(2^r) = −1
// for some r < s. x (m.width() words) is used as scratch.
bool strong_tail(const Mont& m, u64* x, int s) {
  const int n = m.width();
  std::vector<u64> minus_one(static_cast<size_t>(n));
  sub_small(minus_one.data(), m.modulus(), 1, n);
  if (is_plain_one(x, n) || equal(x, minus_one.data(), n)) return true;
  if (s < 2) return false;
  // Squarings in the Montgomery domain: −1 there is n − R mod n.
  m.to_mont(x, x);
  sub(minus_one.data(), m.modulus(), m.one(), n);
  for (int r = 1; r < s; r++) {
    m.sqr(x, x);
    if (equal(x, minus_one.data(), n)) return true;
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
  const size_t n = size_t(limbs);
  std::vector<u64> scratch(4 * n, 0);
  u64 *x = scratch.data(), *res = x + n, *bitv = res + n, *t = bitv + n;
  std::memcpy(x, a, sizeof(u64) * n);
  int top = bit_length(a, limbs) - 1;
  if (top < 0) return true;
  top &= ~1;
  bitv[top >> 6] = u64(1) << (top & 63);
  while (!is_zero(bitv, limbs)) {
    add(t, res, bitv, limbs);
    if (cmp(x, t, limbs) >= 0) {
      sub(x, x, t, limbs);
      shr1(res, res, limbs);
      add(res, res, bitv, limbs);
    } else {
      shr1(res, res, limbs);
    }
    shr1(bitv, bitv, limbs);
    shr1(bitv, bitv, limbs);
  }
  return is_zero(x, limbs);
}

// Montgomery form of a small signed value.
void small_to_mont(const Mont& m, int64_t v, u64* out) {
  const int n = m.width();
  std::vector<u64> t(size_t(n), 0);
  t[0] = uint64_t(v < 0 ? -v : v);
  m.to_mont(out, t.data());
  if (v < 0 && !is_zero(out, n)) sub(out, m.modulus(), out, n);
}

}  // namespace

bool strong_probable_prime_base2(const Mont& m) {
  const size_t n = size_t(m.width());
  std::vector<u64> scratch(2 * n);
  u64 *d = scratch.data(), *x = d + n;
  const int s = split_minus_one(m, d);
  m.pow2(x, d, m.width());
  return strong_tail(m, x, s);
}

bool fermat_base2(const Mont& m) {
  const size_t n = size_t(m.width());
  std::vector<u64> scratch(2 * n);
  u64 *e = scratch.data(), *x = e + n;
  sub_small(e, m.modulus(), 1, m.width());
  m.pow2(x, e, m.width());
  return is_plain_one(x, m.width());
}

int fermat_base2_lanes(int bits) { return kernel_in_force().lanes_for(bits); }

void fermat_base2_many(const u64* const* n, int count, int limbs, bool* out) {
  const BignumKernel& k = kernel_in_force();
  bool together = true;
  for (int i = 0; together && i < count; i++) together = k.lanes_for(bit_length(n[i], limbs)) > 1;
  if (together) {
    for (int i = 0; i < count; i += k.fermat_lanes)
      k.fermat(n + i, std::min(k.fermat_lanes, count - i), limbs, out + i);
    return;
  }
  for (int i = 0; i < count; i++) out[i] = fermat_base2(Mont(n[i], limbs, k));
}

bool strong_lucas_probable_prime(const Mont& m) {
  // The number's size decides what n is; the width (maybe padded by the
  // kernel) is only for values in the Montgomery domain.
  const int size = m.size();
  const int n = m.width();
  const u64* N = m.modulus();
  // Selfridge's method A: the first D in 5, −7, 9, −11, … with (D/n) = −1.
  int64_t D = 5;
  for (int tries = 0;; tries++) {
    const int j = jacobi_small(D, N, size);
    if (j == -1) break;
    if (j == 0) {
      // gcd(|D|, n) > 1: n is composite unless n = |D|.
      const u64 absd = uint64_t(D < 0 ? -D : D);
      return size == 1 && N[0] == absd;
    }
    if (tries == 8 && is_square(N, size)) return false;
    D = D > 0 ? -(D + 2) : -D + 2;
  }
  const int64_t Q = (1 - D) / 4;  // P = 1
  // Scratch: n + 1 (one word more than the number, for its carry), then the
  // Lucas values in the Montgomery domain.
  const size_t w = size_t(n);
  std::vector<u64> scratch(size_t(size) + 1 + 7 * w, 0);
  u64* d = scratch.data();
  u64 *U = d + size + 1, *V = U + w, *Qk = V + w, *Dm = Qk + w, *Qm = Dm + w, *t = Qm + w, *u2 = t + w;
  // n + 1 = d·2^s
  int dl = size;
  if (add_small(d, N, 1, size)) d[dl++] = 1;
  int s = 0;
  while (!(d[0] & 1)) {
    shr1(d, d, dl);
    s++;
  }
  dl = trimmed(d, dl);
  small_to_mont(m, D, Dm);
  small_to_mont(m, Q, Qm);
  std::memcpy(U, m.one(), sizeof(u64) * w);  // U_1 = 1
  std::memcpy(V, m.one(), sizeof(u64) * w);  // V_1 = P = 1
  std::memcpy(Qk, Qm, sizeof(u64) * w);      // Q^1
  for (int i = bit_length(d, dl) - 2; i >= 0; i--) {
    // k → 2k: U = U·V, V = V² − 2Q^k, Q^k = (Q^k)²
    m.mul(U, U, V);
    m.sqr(V, V);
    m.dbl(t, Qk);
    m.sub(V, V, t);
    m.sqr(Qk, Qk);
    if (bit(d, i)) {
      // 2k → 2k+1: U' = (U + V)/2, V' = (D·U + V)/2, Q^k·Q
      m.mul(t, Dm, U);
      m.add(u2, U, V);
      m.half(U, u2);
      m.add(t, t, V);
      m.half(V, t);
      m.mul(Qk, Qk, Qm);
    }
  }
  if (is_zero(U, n) || is_zero(V, n)) return true;
  for (int r = 1; r < s; r++) {
    m.sqr(V, V);
    m.dbl(t, Qk);
    m.sub(V, V, t);
    if (is_zero(V, n)) return true;
    m.sqr(Qk, Qk);
  }
  return false;
}

bool miller_rabin_derived(const Mont& m, int i) {
  const int size = m.size();
  const int n = m.width();
  const u64* N = m.modulus();
  // base = 2 + (SHA-256(n as minimal big-endian bytes ‖ be32(i)) mod (n − 3)).
  std::vector<uint8_t> msg;
  const int nbits = bit_length(N, size);
  for (int b = (nbits + 7) / 8 - 1; b >= 0; b--) msg.push_back(uint8_t(N[b / 8] >> (8 * (b % 8))));
  for (int k = 3; k >= 0; k--) msg.push_back(uint8_t(uint32_t(i) >> (8 * k)));
  uint8_t h[32];
  sha256::hash(sha256::best_hasher(), msg.data(), msg.size(), h);
  // The reduction runs on at least the hash's 4 words.
  const int w = n > 4 ? n : 4;
  std::vector<u64> scratch(3 * size_t(w) + 2 * size_t(n), 0);
  u64 *hv = scratch.data(), *mod3 = hv + w, *base = mod3 + w, *d = base + w, *x = d + n;
  for (int k = 0; k < 32; k++) hv[(31 - k) / 8] |= u64(h[k]) << (8 * ((31 - k) % 8));
  sub_small(mod3, N, 3, n);
  // hv mod (n − 3), bit by bit (hv has 256 bits, so this is short).
  for (int b = 255; b >= 0; b--) {
    u64 top = base[w - 1] >> 63;
    for (int k = w - 1; k > 0; k--) base[k] = (base[k] << 1) | (base[k - 1] >> 63);
    base[0] = (base[0] << 1) | u64(bit(hv, b));
    if (top || cmp(base, mod3, w) >= 0) sub(base, base, mod3, w);
  }
  add_small(base, base, 2, n);
  const int s = split_minus_one(m, d);
  m.modexp(x, base, d, n);
  return strong_tail(m, x, s);
}

bool is_probable_prime(const u64* n_in, int limbs, int rounds, bool trial, const BignumKernel& kernel) {
  const int n = trimmed(n_in, limbs);
  if (n == 1 && n_in[0] < 4) return n_in[0] >= 2;
  if (!(n_in[0] & 1)) return false;
  if (trial) {
    for (uint32_t r : trial_primes()) {
      if (n == 1 && n_in[0] == r) return true;
      if (mod_small(n_in, n, r) == 0) return false;
    }
  }
  const Mont m(n_in, n, kernel);
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
  std::vector<u64> q(static_cast<size_t>(n));
  shr1(q.data(), p_in, n);
  if (!is_probable_prime(q.data(), n, rounds)) return false;
  const Mont m(p_in, n);
  return fermat_base2(m);
}

}  // namespace powprime::bignum
