// linkSignals stands in for AbortSignal.any, which on Node 20 keeps every signal made from a
// long-lived source (a client's signal) for the source's life: a call's link must abort with the
// first source that does and leave nothing hooked on the sources once disposed.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkSignals } from '../src/clients/http/linked-signal.ts';
import { startFakeServices } from '../src/fake-services/index.ts';
import { QuestionClient } from '../src/clients/question/client.ts';
import { tempDir } from './helpers/tmp.ts';

describe('linkSignals', () => {
  it('aborts with the reason of the first source that aborts', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals([a.signal, b.signal]);
    expect(linked.signal.aborted).toBe(false);
    const reason = new Error('stop b');
    b.abort(reason);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe(reason);
    // Nothing left on either source once one fired.
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    a.abort(new Error('later'));
    expect(linked.signal.reason).toBe(reason);
  });

  it('is aborted at once when a source already is', () => {
    const a = new AbortController();
    a.abort('early');
    const linked = linkSignals([new AbortController().signal, a.signal]);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('early');
  });

  it('dispose unhooks it: a disposed link never aborts, and the sources hold no listener', () => {
    const a = new AbortController();
    const linked = linkSignals([a.signal]);
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(1);
    linked.dispose();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    a.abort();
    expect(linked.signal.aborted).toBe(false);
  });

  it("a client's signal holds no listener after 300 calls, each with its own signal too", async () => {
    const fake = await startFakeServices({ unlimited: true });
    try {
      const long = new AbortController();
      const client = new QuestionClient({ baseUrl: fake.url.href, stateDir: tempDir(), limits: 'off', signal: long.signal });
      for (let i = 0; i < 300; i++) await client.config({ signal: new AbortController().signal });
      expect(getEventListeners(long.signal, 'abort')).toHaveLength(0);
    } finally {
      fake.close();
    }
  });
});
