// The SafePrimeSieve class: a combined sieve over a run of safe-prime
// candidates, whose tables (megabytes) JavaScript owns through a small wrapper.
#pragma once

#include <napi.h>

namespace powprime::napi {

// new SafePrimeSieve(start: bigint, sieveLimit: number, rounds?: number, keep?: 0 | 1 | 2, previous?: SafePrimeSieve, plan?)
// keep: which class is kept besides the sieve's survivors (bignum::Keep: all, p ≡ 23 mod 24, an ssh-keygen generator).
// previous: a sieve this one consumes (closes), deriving its deep roots from it when they fit (safe_prime_sieve.h).
// .derived: whether they did.
// .search(j0: number, j1: number, stop?: BigUint64Array): {found: number | null, sieved: number, tested: number, stopped?: true}
// .close(): frees the sieve's tables now (idempotent); a later search throws.
// The tables are megabytes (8 bytes per sieve prime), so the owner closes a
// sieve when its work ends; collection of an unclosed one is only a safety net.
// The optional deep plan argument {spacing, slots, ahead?} (safe_prime_sieve.h):
// spacing an integer below 2^52 (0: none), slots from 1 to 256 (a block holds
// slots deep windows, up to 4 MB each), ahead the run's index positions from
// this one on, this one included: an integer from 1 below 2^53, or absent
// when the run has no known end.
//
// Defines the class in `env` (each worker thread has its own) and keeps it
// there, to tell a `previous` sieve from any other object.
Napi::Function DefineSafePrimeSieve(Napi::Env env);

}  // namespace powprime::napi
