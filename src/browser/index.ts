/**
 * powprime in browsers (the package's `browser` export condition): solving
 * and checking proof of work with no Node built-ins. The search runs on Web
 * Workers with the WebAssembly SIMD kernel, or the TS kernel where that does
 * not compile; the answer equals Node's for every backend and worker count.
 */
export { solvePow } from './solve.ts';
export type { BrowserSolveOptions as SolveOptions, BrowserPowSolution as PowSolution } from './solve.ts';
export type { BrowserBackend as Backend, BrowserBackendChoice as BackendChoice } from './protocol.ts';
export { verifyPow } from '../pow/solve-input.ts';
export type { PowChallenge, PowProgress } from '../pow/solve-input.ts';
export { candidate, powLayout } from '../pow/order.ts';
export type { PowLayout } from '../pow/order.ts';
// Issuing and checking challenges needs no Node built-in either (WebCrypto for the salt).
export { createChallenge, MAX_DIFFICULTY_BITS } from '../pow/challenge.ts';
export type { Challenge, ChallengeDifficulty, ChallengeKey, CreateChallengeOptions } from '../pow/challenge.ts';
export { verifySolution, verifySolutionSync } from '../pow/challenge-verify.ts';
export type { ChallengeProof, VerifySolutionOptions, VerifiedSolution } from '../pow/challenge-verify.ts';
export { MemoryReplayStore } from '../pow/replay-store.ts';
export type { ReplayStore, MemoryReplayStoreOptions } from '../pow/replay-store.ts';
export { difficultyFor } from '../pow/difficulty-for.ts';
export type { DifficultyForOptions, DifficultyChoice } from '../pow/difficulty-for.ts';
export { BackendUnavailableError, InternalError, PowExhaustedError, PowprimeError } from '../errors.ts';
export { ChallengeError, type ChallengeRefusal } from '../pow/challenge-error.ts';
