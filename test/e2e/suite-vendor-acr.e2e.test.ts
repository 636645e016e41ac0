// The vendor-acr suite under jest: the real acr-credential-provider (built
// unmodified from the Go module proxy on first use) under a real kubelet
// v1.37.1, against a fake managed identity endpoint and ACR login server on
// loopback. Every check (credprov's prediction vs what the kubelet and the
// plugin did) must pass, and no secret the lab issued may reach an artefact.
import { describe, expect } from '@jest/globals';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { notPassed, sortedIds, suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { vendorAcrSuite } from '../../suites/vendor-acr/index.ts';
import { VENDOR_ACR_CHECKS } from '../../suites/vendor-acr/checks.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { Redactor } from '../../src/core/redact.ts';

/** Every secret the suite registers (the lab's passwords, the identity header, each access token the fake issued). */
class SecretsSeen extends Redactor {
  readonly seen = new Set<string>();
  override add(...secrets: Array<string | undefined>): this {
    for (const s of secrets) if (s && s.length >= 8) this.seen.add(s);
    return super.add(...secrets);
  }
}
const redactor = new SecretsSeen();

// A cold cache builds the plugin first (about 4 minutes with a warm module cache, 7 on a busy machine).
const TIMEOUT_MS = 900_000;
const { it, run, verdict, dir } = await suiteOnLocalCluster(vendorAcrSuite, { envName: e2eEnvName('acr'), redactor });

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

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
      const secrets = [...redactor.seen];
      // The client secret, the refresh token, the identity header and at least one issued access token.
      expect(secrets.length).toBeGreaterThanOrEqual(4);
      const files = await filesUnder(dir());
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        if ((await stat(file)).size > 20_000_000) continue;
        const text = await readFile(file, 'utf8');
        expect({ file, jwt: /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./.test(text) }).toEqual({ file, jwt: false });
        for (const s of secrets) expect({ file, leaked: text.includes(s) }).toEqual({ file, leaked: false });
      }
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
