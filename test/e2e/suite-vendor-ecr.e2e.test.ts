// The vendor-ecr suite under jest: the real ecr-credential-provider (built
// unmodified from the Go module proxy on first use) under a real kubelet
// v1.37.1, against fake ECR/STS on loopback. Every check (credprov's
// prediction vs what the kubelet and the plugin did) must pass.
import { describe, expect } from '@jest/globals';
import { notPassed, sortedIds, suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { vendorEcrSuite } from '../../suites/vendor-ecr/index.ts';
import { VENDOR_ECR_CHECKS } from '../../suites/vendor-ecr/checks.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

// A cold cache builds the plugin first (about a minute with a warm Go build cache, several on a cold one).
const TIMEOUT_MS = 900_000;
const { it, run, verdict } = await suiteOnLocalCluster(vendorEcrSuite, { envName: e2eEnvName('ecr') });

describe('vendor-ecr suite on a local cluster', () => {
  it(
    'ECR: every check of the suite passed on the real kubelet and plugin',
    async () => {
      const { report } = await run();
      expect(notPassed(report.checks)).toEqual([]);
      expect(sortedIds(report.checks)).toEqual(sortedIds(VENDOR_ECR_CHECKS));
    },
    TIMEOUT_MS,
  );

  for (const check of VENDOR_ECR_CHECKS) {
    it(
      `${check.id}: ${check.title}`,
      async () => {
        expect(await verdict(check.id)).toMatch(/^passed: /);
      },
      TIMEOUT_MS,
    );
  }

  it(
    'ECR-SECRETS: no AWS secret, registry password or service-account token reaches the report',
    async () => {
      const { report } = await run();
      const text = JSON.stringify(report);
      expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./);
      expect(text).not.toMatch(/"password":"(?!<redacted>)/);
      // …and nothing that is not a secret is hidden: the evidence keeps accounts, roles and token claims readable.
      expect(text).toContain('111122223333.dkr.ecr.us-east-1.amazonaws.com');
      expect(text).toMatch(/"sub":"system:serviceaccount:default:ecr-puller-/);
    },
    TIMEOUT_MS,
  );

  it(
    'ECR-TEARDOWN: the run tears down the environment it brought up',
    async () => {
      const { tornDown } = await run();
      expect(tornDown).toBe(true);
    },
    TIMEOUT_MS,
  );
});
