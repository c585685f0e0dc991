// Linked into the musl builds only (cmake/musl/toolchain.cmake): the compiler's
// libstdc++.a and libgcc_eh.a are linked in statically, so that the addon
// needs nothing from the system but musl itself, and they were built against
// glibc, whose additions below musl lacks. Each is given its documented
// meaning from what musl has.
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/random.h>

extern "C" {

namespace {
// abstime on `clock` as the same instant on CLOCK_REALTIME, which musl's timed waits take.
struct timespec on_realtime(clockid_t clock, const struct timespec* abstime) {
  if (clock == CLOCK_REALTIME) return *abstime;
  struct timespec now_clock, now_real;
  clock_gettime(clock, &now_clock);
  clock_gettime(CLOCK_REALTIME, &now_real);
  long long ns = (long long)(abstime->tv_sec - now_clock.tv_sec) * 1000000000LL + (abstime->tv_nsec - now_clock.tv_nsec);
  if (ns < 0) ns = 0;
  ns += now_real.tv_nsec;
  struct timespec out;
  out.tv_sec = now_real.tv_sec + ns / 1000000000LL;
  out.tv_nsec = ns % 1000000000LL;
  return out;
}
}  // namespace

// glibc 2.30: timed waits on a chosen clock (libstdc++ passes CLOCK_MONOTONIC
// for steady_clock). Converted to CLOCK_REALTIME at the call; a clock step
// during the wait shifts its end, as with any realtime wait.
__attribute__((visibility("hidden"))) int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                                                 const struct timespec* abstime) {
  const struct timespec t = on_realtime(clock, abstime);
  return pthread_cond_timedwait(cond, mutex, &t);
}

__attribute__((visibility("hidden"))) int pthread_mutex_clocklock(pthread_mutex_t* mutex, clockid_t clock, const struct timespec* abstime) {
  const struct timespec t = on_realtime(clock, abstime);
  return pthread_mutex_timedlock(mutex, &t);
}

// glibc: non-zero while the process has one thread, letting libstdc++ skip
// atomic reference counts. Zero is always correct (atomics always used).
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;

// glibc's internal name for pthread_key_create. libstdc++'s archive objects
// hold a weak reference to it to ask whether threads exist at all; left
// unresolved (musl has no such name) they would think not and drop their locks.
// Weak: static musl (libc.a) has the name internally, and then that one is used.
__attribute__((weak, visibility("hidden"))) int __pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) {
  return pthread_key_create(key, destructor);
}

// glibc's internal name for getauxval, which libgcc's aarch64 start-up code
// calls to learn whether the CPU has LSE atomics. musl's libc.a has it too,
// but its libc.so exports only getauxval: weak, so the static link keeps
// musl's own.
__attribute__((weak, visibility("hidden"))) unsigned long __getauxval(unsigned long type) { return getauxval(type); }

// glibc 2.36: random bytes from the kernel; libstdc++'s random_device may use it.
__attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t v = 0;
  while (getrandom(&v, sizeof v, 0) != sizeof v) {
  }
  return v;
}

// glibc 2.35's layout on x86-64 and aarch64 (no eh_dbase or eh_count fields).
struct dl_find_object {
  unsigned long long dlfo_flags;
  void* dlfo_map_start;
  void* dlfo_map_end;
  struct link_map* dlfo_link_map;
  void* dlfo_eh_frame;
  unsigned long long __dlfo_reserved[7];
};

namespace {
struct FindArg {
  uintptr_t pc;
  dl_find_object* out;
  bool found;
};

int find_in(struct dl_phdr_info* info, size_t, void* data) {
  auto* arg = static_cast<FindArg*>(data);
  const ElfW(Phdr)* eh = nullptr;
  uintptr_t lo = 0, hi = 0;
  bool inside = false;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_GNU_EH_FRAME) eh = &ph;
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (arg->pc >= start && arg->pc < start + ph.p_memsz) {
      inside = true;
      lo = start;
      hi = start + ph.p_memsz;
    }
  }
  if (!inside) return 0;
  arg->found = true;
  arg->out->dlfo_flags = 0;
  arg->out->dlfo_map_start = reinterpret_cast<void*>(lo);
  arg->out->dlfo_map_end = reinterpret_cast<void*>(hi);
  arg->out->dlfo_link_map = nullptr;
  arg->out->dlfo_eh_frame = eh ? reinterpret_cast<void*>(info->dlpi_addr + eh->p_vaddr) : nullptr;
  return 1;
}
}  // namespace

// glibc 2.35: the loaded object containing pc and its PT_GNU_EH_FRAME, which
// libgcc's unwinder asks for every frame of a C++ exception. musl answers the
// same question through dl_iterate_phdr. Returns 0 when found, -1 otherwise.
__attribute__((visibility("hidden"))) int _dl_find_object(void* pc, dl_find_object* result) {
  FindArg arg{reinterpret_cast<uintptr_t>(pc), result, false};
  dl_iterate_phdr(find_in, &arg);
  return arg.found ? 0 : -1;
}

}  // extern "C"
