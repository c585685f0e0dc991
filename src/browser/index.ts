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
export { BackendUnavailableError, InternalError, PowExhaustedError, PowprimeError } from '../errors.ts';
