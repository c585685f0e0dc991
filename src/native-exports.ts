/**
 * What the native addon exports (the Init of native/addon.cc), as the TS side
 * expects it: NativeBinding in native.ts and the lock binding in
 * fs/file-lock.ts. test/native-tables.test.ts holds this list equal, both
 * ways, to addon.cc's exports, to the loaded addon's keys and to those
 * interfaces, so a function added or dropped on one side alone fails there.
 */
export const NATIVE_EXPORTS = [
  'lockOpen',
  'lockClose',
  'tables',
  'setBignumKernel',
  'isProbablePrime',
  'isSafePrime',
  'modPow',
  'pow2Mod',
  'fermatBase2',
  'SafePrimeSieve',
  'nativeMemory',
  'backendInfo',
  'sha256',
  'powSearch',
  'exitNow',
  'exitOnStopSignals',
  'version',
] as const;

export type NativeExport = (typeof NATIVE_EXPORTS)[number];
