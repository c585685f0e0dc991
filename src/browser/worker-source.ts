/**
 * The search worker's script as one string, for a Blob URL (see fan-out.ts).
 * Empty here: the browser build (scripts/build-browser.mjs) bundles worker.ts
 * and puts it in place of this module.
 */
export const WORKER_SOURCE: string = '';
