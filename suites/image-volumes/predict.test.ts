import { describe, expect, test } from '@jest/globals';
import { predictStory, type StoryInput } from './predict.ts';

const input = (kubeletVersion: string): StoryInput => ({
  kubeletVersion,
  namespace: 'iv',
  host: '127.0.0.5:5000',
  volumeRef: '127.0.0.5:5000/iv/data:v1',
  audience: 'credprov-iv',
  uids: { reader: 'uid-r', nobody: 'uid-n' },
});

describe('image-volumes predictions', () => {
  test.each(['1.35.4', '1.36.5', '1.37.1'])('kubelet %s: the story of four pods', (v) => {
    const [first, nobodyNever, nobodyPull, readerNever] = predictStory(input(v));
    expect(first!.seen.value).toEqual({ outcome: 'Running', execs: 1 });
    expect(first!.tokenSub).toBe('system:serviceaccount:iv:reader');
    expect(first!.mapping).toEqual({ kubernetesServiceAccounts: [{ uid: 'uid-r', namespace: 'iv', name: 'reader' }] });
    expect(nobodyNever!.seen.value).toEqual({ outcome: 'ErrImageNeverPull', execs: 0 });
    expect(nobodyNever!.seen.because).toMatch(/not exec'd for nobody/);
    expect(nobodyPull!.seen.value).toEqual({ outcome: 'ErrImagePull', execs: 0 });
    expect(readerNever!.seen.value).toEqual({ outcome: 'Running', execs: 1 });
  });
});
