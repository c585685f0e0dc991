// closePool() at any moment: the calls still running reject with a typed
// error and the process lives on (a worker terminated inside a native call
// used to abort the whole process).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { hasNative } from './helpers/backends.ts';

const CHILD = ['--import', 'tsx', 'test/fixtures/close-pool-child.ts'];

describe.runIf(hasNative)('closePool() during native work', () => {
  it.each([0, 40, 300, 500, 700, 900, 1100, 1300])('at %d ms: the process survives, the calls end with ERR_POOL_CLOSED or their answer', (delay) => {
    const r = spawnSync(process.execPath, [...CHILD, String(delay)], { encoding: 'utf8', timeout: 120_000 });
    expect(r.signal, r.stderr).toBeNull();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/terminate called|FATAL|Unexpected message/);
    const [search, check] = JSON.parse(r.stdout) as [string, string];
    expect(['ERR_POOL_CLOSED', 'found']).toContain(search);
    expect(['ERR_POOL_CLOSED', 'false']).toContain(check);
  });
});
