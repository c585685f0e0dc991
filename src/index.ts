export { solvePow, verifyPow } from './pow/solve.ts';
export type { PowChallenge, PowProgress, PowSolution, SolveOptions } from './pow/solve.ts';
export { createChallenge, MAX_DIFFICULTY_BITS } from './pow/challenge.ts';
export type { Challenge, ChallengeDifficulty, ChallengeKey, CreateChallengeOptions } from './pow/challenge.ts';
export { verifySolution, verifySolutionSync } from './pow/challenge-verify.ts';
export type { ChallengeProof, VerifySolutionOptions, VerifiedSolution } from './pow/challenge-verify.ts';
export { MemoryReplayStore } from './pow/replay-store.ts';
export type { ReplayStore, MemoryReplayStoreOptions } from './pow/replay-store.ts';
export { RedisReplayStore } from './pow/replay-store-redis.ts';
export type { RedisSetClient, RedisReplayStoreOptions } from './pow/replay-store-redis.ts';
export { difficultyFor } from './pow/difficulty-for.ts';
export type { DifficultyForOptions, DifficultyChoice } from './pow/difficulty-for.ts';
export { candidate, powLayout } from './pow/order.ts';
export type { PowLayout } from './pow/order.ts';
export { sha256 } from './hash/digest.ts';
export type { Sha256Options } from './hash/digest.ts';
export { backendInfo } from './backend.ts';
export type { Backend, BackendChoice, BackendInfo, PowBackend, PowBackendChoice } from './backend.ts';
export {
  PowprimeError,
  PowExhaustedError,
  BackendUnavailableError,
  InterruptedError,
  InternalError,
  NoSafePrimeError,
  PoolClosedError,
  SearchStoppedError,
  QueueUnreachableError,
  QueueJobFailedError,
  WriteFailedError,
  FileLockedError,
} from './errors.ts';
export { ChallengeError, type ChallengeRefusal } from './pow/challenge-error.ts';
export { closePool } from './pool/pool.ts';
export { isProbablePrime, isProbablePrimeSync, isSafePrime, isSafePrimeSync } from './prime/check.ts';
export type { PrimeCheckOptions } from './prime/check.ts';
export { generateDhParams } from './prime/dhparam.ts';
export type { DhParams, DhParamsOptions } from './prime/dhparam.ts';
export { dhParamsDer, dhParamsPem } from './prime/dh-pem.ts';
export { findSafePrime, searchSafePrimes } from './prime/search.ts';
export type { FindSafePrimeOptions, SearchSafePrimesOptions } from './prime/search.ts';
export { randomSeed } from './prime/seed.ts';
export { generateModuli } from './moduli/generate.ts';
export type { GeneratedModulus, GenerateModuliOptions } from './moduli/generate.ts';
export { screenModuli } from './moduli/screen.ts';
export type { ScreenModuliOptions, ScreenModuliProgress, ScreenModuliResult } from './moduli/screen.ts';
export { formatModuliLine, moduliEntryProblem, moduliTimestamp, parseModuliLine, sshGenerator } from './moduli/format.ts';
export type { ModuliEntry, ModuliLineError } from './moduli/format.ts';
export { searchSafePrimeRange } from './prime/range-search.ts';
export type { RangeOutcome, RangeSearchOptions } from './prime/range-search.ts';
export { searchSafePrimeSlice } from './prime/slice-search.ts';
export type { SliceOptions, SliceOutcome } from './prime/slice-search.ts';
export type { SafePrimeResult } from './prime/runs.ts';
export type { SafePrimeProgress, SafePrimeSearchOptions } from './prime/search-options.ts';
export { QuestionClient } from './clients/question/client.ts';
export { sanitizeFilename } from './clients/http/file-names.ts';
export type { QuestionClientOptions, QuestionPowOptions } from './clients/question/options.ts';
export type { DeliveredFile, FileListing, ItemError, Stats, Thread, ThreadItem } from './clients/question/threads.ts';
export { HUMAN_NOTICE, attributionText } from './clients/question/attribution.ts';
export type { Attribution } from './clients/question/attribution.ts';
export {
  BadRequestError,
  ChallengeExpiredError,
  DeadlineError,
  ServiceNotFoundError,
  ProtocolError,
  RateLimitWaitError,
  RateLimitedError,
  ServerError,
  ServiceError,
  StateFileCorruptError,
  RequestTimeoutError,
  ResponseTooLargeError,
  UnauthorizedError,
} from './clients/errors.ts';
export { NetworkError } from './clients/network-error.ts';
export { realClock } from './clients/clock.ts';
export type { Clock } from './clients/clock.ts';
export { b85decode, b85encode } from './clients/registry/base85.ts';
export { totpCode, totpCounter } from './clients/registry/totp.ts';
export type { TotpOptions } from './clients/registry/totp.ts';
export { decryptKey, decryptKeyDetailed, encryptKey } from './clients/registry/key-crypto.ts';
export type { DecryptKeyOptions, EncryptKeyOptions } from './clients/registry/key-crypto.ts';
export { PrimeRegistryClient } from './clients/registry/client.ts';
export type { KeyMaterial, PrimeRecord } from './clients/registry/records.ts';
export type { RegistryClientOptions } from './clients/registry/options.ts';
export {
  JsonError,
  NotExistError,
  NotPrimeError,
  NotSafePrimeError,
  RegisteredError,
  RegistryError,
  RequirementsError,
  TotpError,
} from './clients/registry/errors.ts';
export { Keystore, redact } from './clients/registry/keystore.ts';
export type { KeystoreOptions, LedgerEntry, LedgerState } from './clients/registry/keystore.ts';
export { Registrar, type Registration } from './clients/registry/registrar.ts';
export { pipelineFile, QuestionPipeline } from './clients/question/pipeline.ts';
export type { PipelineOptions } from './clients/question/pipeline.ts';
export type { PipelineEvents } from './clients/question/pipeline-items.ts';
export { promptKey } from './clients/question/pipeline-state.ts';
export { AdClient } from './clients/ads/client.ts';
export { AD_ROUTES } from './clients/ads/routes.ts';
export { QUESTION_ROUTES } from './clients/question/routes.ts';
export { REGISTRY_ROUTES } from './clients/registry/routes.ts';
export type { Route, RouteTable } from './clients/http/routes.ts';
export type { AdClientOptions } from './clients/ads/client.ts';
export type { Ad } from './clients/ads/ad.ts';
