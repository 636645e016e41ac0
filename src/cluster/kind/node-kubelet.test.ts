import { describe, expect, test } from '@jest/globals';
import { waitForKubelet } from './node-kubelet.ts';
import type { Runner } from './tools.ts';

/** A node whose kubelet answers each look with the next of `looks` ("<restarts> <healthz>"), then the last. */
function node(looks: string[], journal = ''): Runner & { calls: string[] } {
  const calls: string[] = [];
  let i = 0;
  const run = (async (_cmd: string, args: string[]) => {
    calls.push(args.join(' '));
    if (args.includes('journalctl')) return { exitCode: 0, stdout: journal, stderr: '' };
    return { exitCode: 0, stdout: looks[Math.min(i++, looks.length - 1)]!, stderr: '' };
  }) as Runner & { calls: string[] };
  run.calls = calls;
  return run;
}

describe("a kind node's kubelet after a restart", () => {
  test('done once /healthz answers ok', async () => {
    const run = node(['0 ', '0 ', '0 ok']);
    await waitForKubelet(run, 'n1', { intervalMs: 0 });
    expect(run.calls).toHaveLength(3);
  });

  test('a kubelet that exits (systemd restarts it) refused its config: its own error line, its journal as detail', async () => {
    const journal = [
      'I1 server.go] "Kubelet version" kubeletVersion="v1.37.1"',
      'E1 run.go] "Failed to register CRI auth plugins" err="duplicate provider name \\"a\\" found in configuration file(s)"',
      'I1 other line',
    ].join('\n');
    const run = node(['2 ', '3 '], journal);
    await expect(waitForKubelet(run, 'n1', { intervalMs: 0 })).rejects.toMatchObject({
      reason: expect.stringMatching(
        /^the kubelet of n1 exited after the restart: E1 run.go\] "Failed to register CRI auth plugins" err="duplicate provider name/,
      ),
      detail: journal,
    });
  });

  test('a kubelet that neither answers nor exits is an error too', async () => {
    const run = node(['0 ']);
    await expect(waitForKubelet(run, 'n1', { intervalMs: 0, timeoutMs: -1 })).rejects.toThrow(
      'the kubelet of n1 did not answer /healthz within 60s',
    );
  });
});
