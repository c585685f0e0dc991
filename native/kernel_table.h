// The shape both kernel dispatchers (sha256/dispatch.cc, bignum/dispatch.cc)
// share, after simdjson's implementation list: a table of rows, best first,
// one per kernel, each saying which CPUs run it, why it is refused elsewhere,
// how it proves itself at load, and where its function pointers are. Every
// row whose kernel this build compiled is admitted or refused the same way,
// and the kernel in force is the first admitted row unless a caller forces
// another (each dispatcher keeps its own overrides and, for the SHA-256
// searchers, a timing race).
#pragma once
#include <cstring>
#include <string>
#include <vector>

#include "cpu_features.h"
#include "verify.h"

namespace powprime {

template <class Kernel>
struct KernelRow {
  // The kernel's id, as backendInfo() and the refusals name it.
  const char* name;
  // Whether this CPU (and OS) runs it.
  bool (*supported)(const CpuFeatures& cpu);
  // Why it is refused when supported() says no.
  const char* missing;
  // A known-answer test run once at load; null for the reference the others
  // are tested against, which has nothing to be compared with.
  bool (*self_test)(const Kernel& k);
  // Its function pointers, or null where this build could not compile it
  // (another architecture or compiler): such a row is neither usable nor refused.
  const Kernel* (*kernel)();
};

// For rows whose kernel every CPU of its architecture runs.
inline bool any_cpu(const CpuFeatures&) { return true; }

// The kernels admitted from a table, in its order, and the refused ones as
// "id: reason" (CPU lacks the instructions, or the self-test failed).
template <class Kernel>
struct Admitted {
  std::vector<const Kernel*> usable;
  std::vector<std::string> refused;
};

// Admits one row: nothing when this build lacks its kernel, else usable
// when this CPU runs it and it passes its self-test, else refused.
template <class Kernel>
void admit_row(const KernelRow<Kernel>& row, const CpuFeatures& cpu, Admitted<Kernel>& out) {
  const Kernel* k = row.kernel();
  if (!k) return;
  POWPRIME_CHECK(std::strcmp(row.name, k->id) == 0);
  if (!row.supported(cpu))
    out.refused.push_back(std::string(row.name) + ": " + row.missing);
  else if (row.self_test && !row.self_test(*k))
    out.refused.push_back(std::string(row.name) + ": self-test failed");
  else
    out.usable.push_back(k);
}

// Admits every row in order. The last row is the floor (a portable kernel,
// compiled everywhere): kept usable even if its self-test fails (then listed
// as refused too), so the addon still answers.
template <class Kernel, size_t N>
Admitted<Kernel> admit(const KernelRow<Kernel> (&rows)[N], const CpuFeatures& cpu) {
  Admitted<Kernel> out;
  for (const KernelRow<Kernel>& row : rows) admit_row(row, cpu, out);
  const Kernel* floor = rows[N - 1].kernel();
  if (out.usable.empty() || out.usable.back() != floor) out.usable.push_back(floor);
  return out;
}

}  // namespace powprime
