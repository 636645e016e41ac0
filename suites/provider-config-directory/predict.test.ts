import { describe, expect, test } from '@jest/globals';
import { ACCEPTED_UNNAMED } from '../../src/run/kit.ts';
import { DUPLICATE, EMPTY, FIRST, MERGED, SECOND } from './plan.ts';
import { kubeletFiles, predictMerged, predictStart } from './predict.ts';

const DIR = '/tmp/cfgdir';
const LAB = { host: '127.0.0.1:5000', username: 'lab-user' };

describe('provider-config-directory predictions', () => {
  test('the kubelet reads the .yaml and .json files in lexical order and skips the note', () => {
    expect(kubeletFiles(MERGED, `${DIR}/merged`)).toEqual([
      { path: `${DIR}/merged/10-first.yaml`, providers: [FIRST] },
      { path: `${DIR}/merged/20-second.json`, providers: [SECOND] },
    ]);
  });

  test.each(['1.34', '1.35', '1.36', '1.37', '1.38.0-alpha.0'])(
    '%s: both providers exec’d in file order (not name order); the refused login first, then the working one',
    (v) => {
      expect(predictMerged(MERGED, `${DIR}/merged`, v, LAB).value).toEqual({
        outcome: 'starts',
        execs: [FIRST, SECOND],
        logins: [LAB.username, ACCEPTED_UNNAMED],
        pull: 'success',
      });
    },
  );

  test('1.33: a directory is refused with the os.ReadFile error', () => {
    expect(predictMerged(MERGED, `${DIR}/merged`, '1.33', LAB).value).toEqual({
      outcome: 'refuses to start',
      error: `unable to read external registry credential provider configuration from "${DIR}/merged": read ${DIR}/merged: is a directory`,
    });
    expect(predictStart(EMPTY, `${DIR}/empty`, '1.33').value.error).toContain('is a directory');
  });

  test('1.34+: a name in two files, and an empty directory, are refused with the kubelet’s words', () => {
    expect(predictStart(DUPLICATE, `${DIR}/duplicate`, '1.37').value).toEqual({
      outcome: 'refuses to start',
      error: `duplicate provider name "${FIRST}" found in configuration file(s)`,
    });
    expect(predictStart(EMPTY, `${DIR}/empty`, '1.34').value).toEqual({
      outcome: 'refuses to start',
      error: `no configuration files found in directory "${DIR}/empty"`,
    });
  });
});
