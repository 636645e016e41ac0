import { expect, test } from '@jest/globals';
import { parseMetrics } from './kubelet-metrics.ts';

test('metrics are keyed as written, with labels sorted; comments are left out', () => {
  const m = parseMetrics(
    [
      '# HELP kubelet_x a counter',
      'kubelet_imagemanager_image_mustpull_checks_total{result="credentialRecordFound",b="2"} 3',
      'kubelet_imagemanager_ondisk_pulledrecords 12',
    ].join('\n'),
  );
  expect([...m]).toEqual([
    ['kubelet_imagemanager_image_mustpull_checks_total{b="2",result="credentialRecordFound"}', 3],
    ['kubelet_imagemanager_ondisk_pulledrecords', 12],
  ]);
});
