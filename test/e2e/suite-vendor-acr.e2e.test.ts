// The vendor-acr suite under jest: the real acr-credential-provider (built
// unmodified from the Go module proxy on first use) under a real kubelet
// v1.37.1, against a fake managed identity endpoint and ACR login server on
// loopback. Every check (credprov's prediction vs what the kubelet and the
// plugin did) must pass, and no secret the lab issued may reach an artefact.
import { describe, expect } from '@jest/globals';
import { notPassed, sortedIds, suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { vendorAcrSuite } from '../../suites/vendor-acr/index.ts';
import { VENDOR_ACR_CHECKS } from '../../suites/vendor-acr/checks.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { leaks, RecordingRedactor } from '../../src/testing/secret-scan.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { acrCertifyArgv, startAcrCertifyLab } from '../../src/vendor-labs/acr-lab.ts';

/** Every secret the suite registers (the lab's passwords, the identity header, each access token the fakes issued). */
const redactor = new RecordingRedactor();

// A cold cache builds the plugin first (about 4 minutes with a warm module cache, 7 on a busy machine).
const TIMEOUT_MS = 900_000;
const { it, run, verdict, dir } = await suiteOnLocalCluster(vendorAcrSuite, { envName: e2eEnvName('acr'), redactor });

describe('certify kubelet-plugin: acr-credential-provider (static service principal)', () => {
  it(
    'ACR-CERTIFY: every MUST check passes (exit 0), the client id/secret open both images, and no secret reaches the report',
    async () => {
      const work = await mkdtemp(join(tmpdir(), 'credprov-e2e-certify-acr-'));
      const lab = await startAcrCertifyLab({ dir: join(work, 'lab') });
      try {
        const out = join(work, 'report');
        const code = await main([...acrCertifyArgv(lab), '--report-dir', out]);
        const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as {
          checks: Array<{ id: string; status: string; message: string }>;
        };
        expect(code).toBe(0);
        expect(report.checks.find((c) => c.id === 'KP-CREDENTIALS-OPEN-IMAGE')?.message).toContain(
          'auth key *.azurecr.io',
        );
        expect(await leaks(out, lab.secrets)).toEqual([]);
      } finally {
        await lab.stop();
        await rm(work, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );
});

describe('vendor-acr suite on a local cluster', () => {
  it(
    'ACR: every check of the suite passed on the real kubelet and plugin',
    async () => {
      const { report } = await run();
      expect(notPassed(report.checks)).toEqual([]);
      expect(sortedIds(report.checks)).toEqual(sortedIds(VENDOR_ACR_CHECKS));
    },
    TIMEOUT_MS,
  );

  for (const check of VENDOR_ACR_CHECKS) {
    it(
      `${check.id}: ${check.title}`,
      async () => {
        expect(await verdict(check.id)).toMatch(/^passed: /);
      },
      TIMEOUT_MS,
    );
  }

  it(
    'ACR-SECRETS: no client secret, identity header, access or refresh token, registry password or service-account token reaches any artefact',
    async () => {
      const { report } = await run();
      // The client secret, the refresh token, the identity header and the access tokens (identity endpoint, Azure AD).
      expect(new Set(redactor.seen).size).toBeGreaterThanOrEqual(5);
      expect(await leaks(dir(), redactor.seen)).toEqual([]);
      const text = JSON.stringify(report);
      expect(text).not.toMatch(/"password":"(?!<redacted>)/);
      // …and nothing that is not a secret is hidden: login servers and the exchange's user stay readable.
      expect(text).toMatch(/credprov[0-9a-f]{6}\.azurecr\.io/);
      expect(text).toContain('00000000-0000-0000-0000-000000000000');
    },
    TIMEOUT_MS,
  );

  it(
    'ACR-TEARDOWN: the run tears down the environment it brought up',
    async () => {
      const { tornDown } = await run();
      expect(tornDown).toBe(true);
    },
    TIMEOUT_MS,
  );
});
