import { describe, expect, test } from '@jest/globals';
import { predictStory } from './predict.ts';

const story = (v: string) =>
  predictStory({
    kubeletVersion: v,
    namespace: 'sar',
    host: '127.0.0.5:5000',
    image: '127.0.0.5:5000/sar/app:v1',
    audience: 'credprov-sar',
    uids: ['U1', 'U2'],
  });

describe('service-account-recreate predictions', () => {
  test.each(['1.35.4', '1.36.5', '1.37.1'])('kubelet %s: the six pods, as phase 1 saw them', (v) => {
    const { steps, token } = story(v);
    expect(steps.map((s) => s.seen)).toEqual([
      { execs: 1, role: 'reader', outcome: 'Running', pulled: true },
      { execs: 0, outcome: 'Running', pulled: false },
      { execs: 1, role: 'reader', outcome: 'ErrImageNeverPull', pulled: false },
      { execs: 0, outcome: 'Running', pulled: true },
      { execs: 1, role: 'admin', outcome: 'Running', pulled: false },
      { execs: 0, outcome: 'ErrImagePull', pulled: true },
    ]);
    expect(steps[0]!.recordUids).toEqual(['U1']);
    expect(steps[3]!.recordUids).toEqual(['U1', 'U2']);
    expect(token).toMatchObject({ uid: 'new', accepted: true });
  });

  test("a new pod gets a token of the recreated SA on every minor, 1.33's name-keyed token cache included", () => {
    expect(story('1.33.13').token.uid).toBe('new');
  });
});
