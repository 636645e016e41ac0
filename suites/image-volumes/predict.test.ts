import { describe, expect, test } from '@jest/globals';
import { predictStory, seenAgrees, type StoryInput } from './predict.ts';

const input = (kubeletVersion: string): StoryInput => ({
  kubeletVersion,
  namespace: 'iv',
  host: '127.0.0.5:5000',
  volumeRef: '127.0.0.5:5000/iv/data:v1',
  audience: 'credprov-iv',
  uids: { reader: 'uid-r', nobody: 'uid-n' },
});

describe('image-volumes predictions', () => {
  test.each([
    ['1.35.4', { atLeast: true }],
    ['1.36.5', { atLeast: true }],
    ['1.37.1', {}],
  ])('kubelet %s: the story of four pods', (v, floor) => {
    const [first, nobodyNever, nobodyPull, readerNever] = predictStory(input(v));
    expect(first!.seen.value).toEqual({ outcome: 'Running', execs: 1, ...floor });
    expect(first!.tokenSub).toBe('system:serviceaccount:iv:reader');
    expect(first!.mapping).toEqual({ kubernetesServiceAccounts: [{ uid: 'uid-r', namespace: 'iv', name: 'reader' }] });
    expect(nobodyNever!.seen.value).toEqual({ outcome: 'ErrImageNeverPull', execs: 0 });
    expect(nobodyNever!.seen.because).toMatch(/not exec'd for nobody/);
    expect(nobodyPull!.seen.value).toEqual({ outcome: 'ErrImagePull', execs: 0 });
    expect(nobodyNever!.events).toEqual({ pullEventsOn: 'pod', container: 'Failed: Error: ErrImageNeverPull' });
    expect(nobodyPull!.events).toEqual({ pullEventsOn: 'pod', container: 'Failed: Error: ErrImagePull' });
    expect(first!.events).toBeUndefined();
    expect(readerNever!.seen.value).toEqual({ outcome: 'Running', execs: 1, ...floor });
  });

  test('on a kubelet that looks the volume up on every sync, a floor agrees with more execs, never with fewer', () => {
    const floor = { outcome: 'Running' as const, execs: 1, atLeast: true as const };
    expect(seenAgrees(floor, { outcome: 'Running', execs: 2 })).toBe(true);
    expect(seenAgrees(floor, { outcome: 'Running', execs: 0 })).toBe(false);
    expect(seenAgrees({ outcome: 'Running', execs: 1 }, { outcome: 'Running', execs: 2 })).toBe(false);
  });
});
