// The e2e table's further tests over the vendor suites of issue 31 (vendor-gcp,
// vendor-azure-kubelogin, vendor-oci): the SHOULD failures that are the
// plugin's own (findings) failed as predicted, no secret the labs issued
// reaches any file the run wrote, and a run that brought its environment up
// tears it down.
import { expect } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { filesUnder, leaks, type RecordingRedactor } from '../../src/testing/secret-scan.ts';
import type { SuitesOnProvider } from '../../src/testing/suite-on-provider.ts';
import { teardownExtra } from './suite-extras.ts';

/** `<PREFIX>-FINDINGS`: each of `ids` failed on the plugin's account with the prediction agreeing (the finding, not a model bug). */
export function findingsExtra(prefix: string, ids: string[]) {
  return (h: SuitesOnProvider, timeoutMs: number): void => {
    h.it(
      `${prefix}-FINDINGS: ${ids.join(', ')} fail on the plugin's own behaviour, as predicted`,
      async () => {
        await h.run();
        for (const id of ids) {
          const r = await h.result(id);
          expect({ id, status: r?.status, cause: r?.cause, agree: r?.comparison?.agree }).toEqual({
            id,
            status: 'failed',
            cause: 'subject',
            agree: true,
          });
        }
      },
      timeoutMs,
    );
  };
}

/** `<PREFIX>-SECRETS`: no secret the suite registered, no JWT, no cleartext password field in any file of the run. */
export function secretsExtra(prefix: string, minSecrets: number) {
  return (h: SuitesOnProvider, timeoutMs: number): void => {
    h.it(
      `${prefix}-SECRETS: no token, password or key the lab issued reaches any file the run wrote`,
      async () => {
        const { report } = await h.run();
        const seen = (h.redactor as RecordingRedactor).seen;
        expect(seen.length).toBeGreaterThanOrEqual(minSecrets);
        expect(await leaks(h.dir(), seen)).toEqual([]);
        for (const text of [
          JSON.stringify(report),
          ...(await Promise.all((await filesUnder(h.dir())).map((f) => readFile(f, 'utf8').catch(() => '')))),
        ])
          expect(text).not.toMatch(/"password":\s*"(?!<redacted>)/);
      },
      timeoutMs,
    );
  };
}

export function vendorExtras(prefix: string, o: { findings: string[]; minSecrets: number }) {
  return (h: SuitesOnProvider, timeoutMs: number): void => {
    if (o.findings.length) findingsExtra(prefix, o.findings)(h, timeoutMs);
    secretsExtra(prefix, o.minSecrets)(h, timeoutMs);
    teardownExtra(prefix)(h, timeoutMs);
  };
}
