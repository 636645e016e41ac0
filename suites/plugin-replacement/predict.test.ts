import { describe, expect, test } from '@jest/globals';
import { INSTALLER_ADVICE } from '../../src/model/plugin-replacement.ts';
import { predictStory } from './predict.ts';

describe('plugin-replacement predictions', () => {
  const p = predictStory();
  test('a binary renamed over the plugin runs at the next uncached pull, no restart', () => {
    expect(p.rename.value).toEqual({ installer: 'ok', ran: ['v2'], pulled: true });
    expect(p.rename.because).toMatch(/rename\(2\) swaps the directory entry atomically.*no restart/);
  });
  test("the old binary's cache entry still serves its image", () => {
    expect(p.cache.value).toEqual({ ran: [], pulled: true });
    expect(p.cache.because).toMatch(/served from the cache the old binary filled/);
  });
  test('a copy onto the running plugin fails with ETXTBSY and the old binary stays', () => {
    expect(p.inPlace.value).toEqual({ installer: 'ETXTBSY', ran: ['v2'], pulled: true });
  });
  test('an exec while the file is open for writing fails: no credentials', () => {
    expect(p.duringWrite.value).toEqual({ ran: [], pulled: false, kubelet: 'text file busy' });
    expect(p.duringWrite.because).toMatch(/plugin error counter \+1/);
  });
  test('an exec while the plugin is removed fails: no credentials', () => {
    expect(p.unlinked.value).toEqual({ ran: [], pulled: false, kubelet: 'no such file or directory' });
  });
  test('the installer advice says rename, never in place', () => {
    expect(INSTALLER_ADVICE).toMatch(/rename\(2\) it over the old one/);
    expect(INSTALLER_ADVICE).toMatch(/never copy onto the running file/);
  });
});
