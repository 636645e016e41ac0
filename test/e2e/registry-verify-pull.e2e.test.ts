// certify kubelet-plugin --verify-pull against a real registry: the fake
// provider returns good or bad credentials for it, and KP-CREDENTIALS-OPEN-IMAGE
// says whether they open the image.
import { describe, expect, afterAll, beforeAll, jest } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { Auth, busyboxImage, processProvider, type StartedRegistry } from '../../registry/index.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';

// Real processes on a shared, busy machine: generous per-test time.
jest.setTimeout(60_000);

const provider = processProvider();
const it = testIf(all(await provider.isAvailable(), isRoot()));
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'bin', 'credprov.js');
const FAKE = join(ROOT, 'fixtures', 'fake-credential-provider', 'credprov-fake-provider');
const alice = { username: 'alice', password: 'alice-verify-pw' };

describe.each([false, true])('certify kubelet-plugin --verify-pull (tls: %s)', (tls) => {
  let reg: StartedRegistry;
  let dir: string;
  let ref: string;

  beforeAll(async () => {
    if (!(await provider.isAvailable()).ok) return;
    dir = await mkdtemp(join(tmpdir(), 'credprov-verify-'));
    reg = await provider.start({
      name: `e2e-verify${tls ? '-tls' : ''}`,
      hostname: `verify${tls ? '-tls' : ''}.registry.test`,
      auth: Auth.htpasswd([alice]),
      tls,
    });
    ref = await reg.push(await busyboxImage());
  }, 30_000);
  afterAll(async () => {
    await reg?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function certify(password: string, name: string) {
    const scenario = join(dir, `${name}.json`);
    await writeFile(
      scenario,
      JSON.stringify({
        rules: [
          {
            match: [reg.host],
            auth: { [reg.host]: { username: 'alice', password } },
            cacheKeyType: 'Registry',
            cacheDuration: '5m',
          },
        ],
      }),
    );
    const config = join(dir, `${name}.yaml`);
    await writeFile(
      config,
      [
        'apiVersion: kubelet.config.k8s.io/v1',
        'kind: CredentialProviderConfig',
        'providers:',
        '  - name: credprov-fake-provider',
        `    matchImages: ["${reg.host}"]`,
        '    defaultCacheDuration: 5m',
        '    apiVersion: credentialprovider.kubelet.k8s.io/v1',
        '    env:',
        '      - name: CREDPROV_FAKE_SCENARIO',
        `        value: ${scenario}`,
        '',
      ].join('\n'),
    );
    const reportDir = join(dir, `report-${name}`);
    const tlsFlags = reg.caCertPath ? ['--verify-pull-ca', reg.caCertPath] : ['--verify-pull-plain-http'];
    const r = await execa(
      process.execPath,
      [
        CLI,
        'certify',
        'kubelet-plugin',
        '--plugin',
        FAKE,
        '--config',
        config,
        '--image',
        ref,
        '--verify-pull',
        ...tlsFlags,
        '--report-dir',
        reportDir,
      ],
      { reject: false },
    );
    const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8'));
    const check = report.checks.find((c: { id: string }) => c.id === 'KP-CREDENTIALS-OPEN-IMAGE');
    return { r, check, reportText: JSON.stringify(report) + (await readFile(join(reportDir, 'report.md'), 'utf8')) };
  }

  it(`KP-CREDENTIALS-OPEN-IMAGE${tls ? '-TLS' : ''}: credentials that open the image pass the MUST check`, async () => {
    const { r, check } = await certify(alice.password, 'good');
    expect(check).toMatchObject({ level: 'MUST', status: 'passed' });
    expect(check.message).toContain(ref);
    expect(r.exitCode).toBe(0);
  }, 60_000);

  it(`KP-CREDENTIALS-OPEN-IMAGE${tls ? '-TLS' : ''}: credentials the registry refuses fail it with the status, and the password stays out of the report`, async () => {
    const { r, check, reportText } = await certify('a-wrong-password-value', 'bad');
    expect(check).toMatchObject({ status: 'failed' });
    expect(check.message).toMatch(/401/);
    expect(r.exitCode).toBe(1);
    expect(reportText).not.toContain('a-wrong-password-value');
  }, 60_000);
});
