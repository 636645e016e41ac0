// The matching suite and explain --live on a real local cluster: every case's
// prediction (matching oracle + version table) must agree with the kubelet.
import { describe, expect } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { runCli } from '../../src/testing/cli.ts';
import { suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { MATCHING_CHECKS } from '../../suites/matching/checks.ts';
import { matchingSuite } from '../../suites/matching/index.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const ENV_NAME = e2eEnvName('matching');
const processEnv = { ...process.env, CREDPROV_ENV_NAME: ENV_NAME };
// keep: explain --live below reuses the environment and only restarts its kubelet.
const { it, run, dir, verdict, result } = await suiteOnLocalCluster(matchingSuite, { envName: ENV_NAME, keep: true });

describe('matching suite on a local cluster', () => {
  for (const check of MATCHING_CHECKS) {
    it(`${check.id}: the kubelet agrees with the matching oracle`, async () => {
      expect(await verdict(check.id)).toMatch(/^passed: /);
      expect((await result(check.id))?.comparison?.agree).toBe(true);
    }, 300_000);
  }

  it('MATCH-REPORT: report groups the checks under the suite with its wall time', async () => {
    const { report } = await run();
    expect(report.suites?.map((s) => s.name)).toEqual(['matching']);
    expect(report.suites?.[0]?.durationMs).toBeGreaterThan(0);
    expect(report.checks.every((c) => c.suite === 'matching')).toBe(true);
  }, 300_000);

  it('EXPLAIN-LIVE: explain --live --json reports per provider the prediction and what the kubelet did, and exits 0 when they agree', async () => {
    await run();
    const cfg = join(dir(), 'providers.yaml');
    await writeFile(
      cfg,
      stringify({
        apiVersion: 'kubelet.config.k8s.io/v1',
        kind: 'CredentialProviderConfig',
        providers: [
          {
            name: 'ecr',
            matchImages: ['*.dkr.ecr.*.amazonaws.com'],
            defaultCacheDuration: '12h',
            apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
          },
          {
            name: 'corp',
            matchImages: ['registry.example.com'],
            defaultCacheDuration: '1m',
            apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
          },
        ],
      }),
    );
    const r = await runCli(
      [
        'explain',
        '--live',
        '--json',
        '--config',
        cfg,
        '--image',
        '123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:1',
        '--image',
        'registry.example.com:5000/x:1',
      ],
      { env: processEnv },
    );
    expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr.slice(-2000) }).toEqual({ code: 0, stderr: '' });
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      agree: boolean;
      images: Array<{
        image: string;
        providers: Array<{ name: string; live: { invoked: boolean } }>;
        pull: { predicted: string; live: string };
      }>;
    };
    expect(out.agree).toBe(true);
    expect(out.images[0]!.providers.find((p) => p.name === 'ecr')!.live.invoked).toBe(true);
    expect(out.images[0]!.pull).toEqual({ predicted: 'success', live: 'success' });
    // The port in the image is not in the pattern: corp is never exec'd, and the pull has no credentials.
    expect(out.images[1]!.providers.every((p) => !p.live.invoked)).toBe(true);
    expect(out.images[1]!.pull).toEqual({ predicted: 'failure', live: 'failure' });
  }, 300_000);

  it('EXPLAIN-LIVE-BAD-INPUT: an invalid image is refused before any cluster work, exit 2', async () => {
    const r = await runCli(
      [
        'explain',
        '--live',
        '--config',
        join(import.meta.dirname, '..', '..', 'fixtures', 'configs', 'valid-minimal.yaml'),
        '--image',
        'app/Case:v1',
      ],
      { env: processEnv },
    );
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/must be lowercase/);
  });
});
