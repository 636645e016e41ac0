// The real acr-credential-provider (built unmodified from the Go module proxy
// on first use) certified as a kubelet plugin with a static service principal:
// every MUST holds, and no secret the lab issued reaches the report. The
// vendor-acr suite itself runs in the e2e table (suite-table.ts).
import { describe, expect } from '@jest/globals';
import { providerGate } from '../../src/testing/suite-on-provider.ts';
import { leaks } from '../../src/testing/secret-scan.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { acrCertifyArgv, startAcrCertifyLab } from '../../src/vendor-labs/acr-lab.ts';

// A cold cache builds the plugin first (about 4 minutes with a warm module cache, 7 on a busy machine).
const TIMEOUT_MS = 900_000;
const it = await providerGate('local');

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
