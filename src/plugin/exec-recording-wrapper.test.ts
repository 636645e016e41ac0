// The exec recording wrapper is transparent (args, env, stdin, stdout, stderr
// and exit status pass through) and records each run for the suite to read.
import { expect, test } from '@jest/globals';
import { execa } from 'execa';
import { chmod, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useTempDir } from '../testing/tmp.ts';
import { installExecRecordingWrapper, readExecRuns } from './exec-recording-wrapper.ts';

const dir = useTempDir('credprov-exec-wrapper-');

test('passes everything through, replays the answer and exit status, and records the run with KUBERNETES_EXEC_INFO', async () => {
  const target = join(dir(), 'plugin');
  await writeFile(
    target,
    `#!/bin/sh\necho "region=$AWS_REGION args=$*" >&2\nprintf '{"kind":"ExecCredential","status":{"token":"t0k3n"}}'\nexit 3\n`,
  );
  await chmod(target, 0o755);
  const logDir = join(dir(), 'runs');
  const wrapper = await installExecRecordingWrapper({ path: join(dir(), 'wrapped'), target, logDir });
  const info = { kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1', spec: { interactive: false } };
  const r = await execa(wrapper, ['token', '-i', 'c1'], {
    env: { AWS_REGION: 'us-west-2', KUBERNETES_EXEC_INFO: JSON.stringify(info) },
    reject: false,
  });
  expect(r.exitCode).toBe(3);
  expect(String(r.stdout)).toBe('{"kind":"ExecCredential","status":{"token":"t0k3n"}}');
  expect(String(r.stderr)).toBe('region=us-west-2 args=token -i c1');
  const runs = await readExecRuns(logDir);
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({
    args: ['token', '-i', 'c1'],
    exitCode: 3,
    execInfo: info,
    stdout: '{"kind":"ExecCredential","status":{"token":"t0k3n"}}',
    stderr: 'region=us-west-2 args=token -i c1\n',
  });
  expect(runs[0]!.durationMs).toBeGreaterThanOrEqual(0);
  // The recorded answer is a live credential: only root may read it.
  expect((await stat(join(logDir, runs[0]!.id))).mode & 0o077).toBe(0);
});

test('no runs yet: an empty list, not an error', async () => {
  expect(await readExecRuns(join(dir(), 'nothing-here'))).toEqual([]);
});
