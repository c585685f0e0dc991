/// <reference types="node" preserve="true" />
/**
 * powprime/testing: what a project that uses powprime needs to test its own
 * code without the real services or the real clock. Kept out of the main
 * entry so that production code does not load a fake server. Its servers are
 * Node's, so its declarations need Node's types: the reference loads an
 * installed @types/node where TypeScript 7 would not by itself.
 */
export { startFakeServices } from './fake-services/index.ts';
export type { FakeServices, FakeServicesOptions } from './fake-services/index.ts';
export { ManualClock } from './clients/clock.ts';
