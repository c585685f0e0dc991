// The SIMD and bignum kernels without Node: a line-oriented program that the
// musl test (test/musl.test.ts) builds as a static musl executable and feeds
// vectors to, since no musl Node runs here. It links the same kernel sources
// as the addon, with the same toolchain, and answers on stdout:
//   hashers | searchers             ids usable on this CPU, space-separated
//   sha ID HEX                      SHA-256 of the bytes HEX with hasher ID
//   pow ID MID BLOCK END COUNT DIFF K0 K1
//                                   pow_search with searcher ID; MID 8 hex words
//                                   joined by ',', BLOCK 128 hex digits: k or -1
//   prime HEX ROUNDS                is_probable_prime (big-endian hex): 1 or 0
//   safe HEX ROUNDS                 is_safe_prime: 1 or 0
//   throw                           a C++ exception thrown and caught: "caught"
// Plain stdio, no iostreams: the musl build bridges glibc's libstdc++
// headers, and the locale machinery iostreams pull in is glibc's own.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "bignum/primality.h"
#include "sha256/dispatch.h"
#include "sha256/pow_search.h"

using namespace powprime;

namespace {

// The words of one line, read in order.
struct Words {
  std::vector<std::string> words;
  size_t next = 0;
  std::string str() {
    if (next >= words.size()) throw std::invalid_argument("too few arguments");
    return words[next++];
  }
  uint64_t u64() { return std::stoull(str()); }
};

Words split(const std::string& line) {
  Words w;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\n' || line[i] == '\r')) i++;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\n' && line[i] != '\r') i++;
    if (i > start) w.words.push_back(line.substr(start, i - start));
  }
  return w;
}

std::vector<uint8_t> bytes_from_hex(const std::string& hex) {
  if (hex == "-") return {};
  if (hex.size() % 2) throw std::invalid_argument("odd hex length");
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); i++) out[i] = uint8_t(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

// Big-endian hex to little-endian limbs.
std::vector<bignum::u64> limbs_from_hex(const std::string& hex) {
  std::vector<bignum::u64> out;
  for (size_t end = hex.size(); end > 0;) {
    const size_t start = end >= 16 ? end - 16 : 0;
    out.push_back(std::stoull(hex.substr(start, end - start), nullptr, 16));
    end = start;
  }
  if (out.empty()) out.push_back(0);
  return out;
}

std::string answer(Words& in, const std::string& cmd) {
  if (cmd == "hashers" || cmd == "searchers") {
    std::string ids;
    if (cmd == "hashers")
      for (const auto* h : sha256::usable_hashers()) ids += std::string(ids.empty() ? "" : " ") + h->id;
    else
      for (const auto* s : sha256::usable_searchers()) ids += std::string(ids.empty() ? "" : " ") + s->id;
    return ids;
  }
  if (cmd == "sha") {
    const std::string id = in.str(), hex = in.str();
    const sha256::BlockHasher* h = sha256::hasher_by_name(id);
    if (!h) throw std::invalid_argument("no hasher " + id);
    const std::vector<uint8_t> data = bytes_from_hex(hex);
    uint8_t out[32];
    sha256::hash(*h, data.data(), data.size(), out);
    char buf[65];
    for (int i = 0; i < 32; i++) std::snprintf(buf + 2 * i, 3, "%02x", out[i]);
    return buf;
  }
  if (cmd == "pow") {
    const std::string id = in.str(), mid = in.str(), block = in.str();
    sha256::PowJob job{};
    job.digits_end = uint32_t(in.u64());
    job.digits_count = uint32_t(in.u64());
    job.difficulty = uint32_t(in.u64());
    const uint64_t k0 = in.u64(), k1 = in.u64();
    const sha256::PowGroupSearcher* s = sha256::searcher_by_name(id);
    if (!s) throw std::invalid_argument("no searcher " + id);
    size_t at = 0;
    for (int i = 0; i < 8; i++) {
      const size_t comma = mid.find(',', at);
      job.mid[i] = uint32_t(std::stoul(mid.substr(at, comma == std::string::npos ? std::string::npos : comma - at), nullptr, 16));
      if (comma == std::string::npos && i < 7) throw std::invalid_argument("mid must be 8 words");
      at = comma + 1;
    }
    const std::vector<uint8_t> b = bytes_from_hex(block);
    if (b.size() != 64) throw std::invalid_argument("block must be 64 bytes");
    std::copy(b.begin(), b.end(), job.block);
    return std::to_string(sha256::pow_search(*s, job, k0, k1));
  }
  if (cmd == "prime" || cmd == "safe") {
    const std::string hex = in.str();
    const int rounds = std::stoi(in.str());
    const std::vector<bignum::u64> n = limbs_from_hex(hex);
    const int limbs = int(n.size());
    const bool yes = cmd == "prime" ? bignum::is_probable_prime(n.data(), limbs, rounds) : bignum::is_safe_prime(n.data(), limbs, rounds);
    return yes ? "1" : "0";
  }
  if (cmd == "throw") {
    try {
      throw std::runtime_error("caught");
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  throw std::invalid_argument("unknown command " + cmd);
}

}  // namespace

int main() {
  char* buf = nullptr;
  size_t cap = 0;
  while (getline(&buf, &cap, stdin) > 0) {
    Words in = split(buf);
    if (in.words.empty()) continue;
    std::string out;
    try {
      const std::string cmd = in.str();
      out = answer(in, cmd);
    } catch (const std::exception& e) {
      out = std::string("error ") + e.what();
    }
    std::printf("%s\n", out.c_str());
    std::fflush(stdout);
  }
  std::free(buf);
  return 0;
}
