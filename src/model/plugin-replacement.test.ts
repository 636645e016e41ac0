import { describe, expect, test } from '@jest/globals';
import { INSTALLER_ADVICE, replacePlugin, type ReplacementCase } from './plugin-replacement.ts';

const quiet: Omit<ReplacementCase, 'install'> = {
  execRunningDuringInstall: false,
  execStartsDuringInstall: false,
  cachedEntryForNextPull: false,
};

describe('a plugin binary replaced while the kubelet runs', () => {
  test('every install that lands makes the next uncached exec run the new binary, with no restart', () => {
    for (const install of ['rename-over', 'write-in-place', 'unlink-then-write'] as const)
      expect(replacePlugin({ ...quiet, install })).toMatchObject({
        installed: true,
        nextPull: 'new-binary',
        kubeletRestartNeeded: false,
      });
  });

  test('the cache filled by the old binary keeps serving', () => {
    expect(replacePlugin({ ...quiet, install: 'rename-over', cachedEntryForNextPull: true }).nextPull).toBe('cached');
  });

  test('copying onto a running plugin fails with ETXTBSY and leaves the old binary', () => {
    expect(replacePlugin({ ...quiet, install: 'write-in-place', execRunningDuringInstall: true })).toMatchObject({
      installed: false,
      installerError: 'Text file busy',
      nextPull: 'old-binary',
    });
  });

  test('an exec during the install: rename runs the old binary; in place fails busy; unlink fails missing', () => {
    const during = (install: ReplacementCase['install']) =>
      replacePlugin({ ...quiet, install, execStartsDuringInstall: true }).execDuringInstall;
    expect([during('rename-over'), during('write-in-place'), during('unlink-then-write')]).toEqual([
      'old-binary',
      'fails-text-file-busy',
      'fails-no-such-file',
    ]);
  });

  test('the advice names rename and warns against both other installs', () => {
    expect(INSTALLER_ADVICE).toMatch(/rename\(2\)/);
    expect(INSTALLER_ADVICE).toMatch(/ETXTBSY/);
    expect(INSTALLER_ADVICE).toMatch(/no such file or directory/);
  });
});
