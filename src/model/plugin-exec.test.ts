import { describe, expect, test } from '@jest/globals';
import { kubeletExec } from './plugin-exec.ts';

describe("the kubelet's exec of a plugin (plugin.go v1.37.1 + os/exec)", () => {
  test('a plugin that answers and closes its outputs: the answer is used at once', () => {
    expect(kubeletExec({ exitsAtMs: 40 })).toMatchObject({
      returnsAtMs: 40,
      result: 'answer-used',
      killsPlugin: false,
      killsHolder: false,
      errorCounted: false,
    });
  });

  test('a holder that lets go before the minute: the pull waits for it, then uses the answer', () => {
    expect(kubeletExec({ exitsAtMs: 40, outputsCloseAtMs: 15_000 })).toMatchObject({
      returnsAtMs: 15_000,
      result: 'answer-used',
      errorCounted: false,
    });
  });

  test('a holder that outlives the minute: the pull waits until it exits, not until the timeout, and then the answer is thrown away', () => {
    const p = kubeletExec({ exitsAtMs: 40, outputsCloseAtMs: 75_000 });
    expect(p).toMatchObject({
      returnsAtMs: 75_000,
      result: 'deadline-exceeded',
      killsPlugin: false,
      killsHolder: false,
      errorCounted: true,
    });
    expect(p.because).toMatch(/no WaitDelay/);
  });

  test('a plugin that hangs is killed at the timeout; a holder it left still holds the exec', () => {
    expect(kubeletExec({ exitsAtMs: Infinity })).toMatchObject({
      returnsAtMs: 60_000,
      result: 'deadline-exceeded',
      killsPlugin: true,
    });
    expect(kubeletExec({ exitsAtMs: Infinity, outputsCloseAtMs: 90_000 })).toMatchObject({
      returnsAtMs: 90_000,
      killsPlugin: true,
      killsHolder: false,
    });
  });
});
