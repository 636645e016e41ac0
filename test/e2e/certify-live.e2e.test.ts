// `credprov certify kubelet-plugin --live` as a user runs it (the CLI, in
// process): the hermetic checks, then the plugin under the local cluster's
// real kubelet. Three subjects: credprov's fake provider, the real
// ecr-credential-provider (against the fake ECR API, its images served by a
// local registry under an ECR-shaped name), and a plugin that fails, whose
// failures must show in the kubelet's plugin error counter.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { Auth, generatedUser, busyboxImage, processProvider, type StartedRegistry } from '../../registry/index.ts';
import { localProvider } from '../../src/cluster/local/index.ts';
import { noopLogger } from '../../src/core/logger.ts';
import { ECR_PLUGIN_VERSION, ECR_RECIPE } from '../../src/plugin/vendors/ecr.ts';
import { ensureVendorPlugin } from '../../src/plugin/vendors/build.ts';
import { startEcrCertifyLab } from '../../src/vendor-labs/ecr-lab.ts';
import type { RunReport } from '../../src/report/model.ts';
import { runCli } from '../../src/testing/cli.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const ENV_NAME = e2eEnvName('certify-live');
const FAKE = fileURLToPath(new URL('../../fixtures/fake-credential-provider/credprov-fake-provider', import.meta.url));
const available = await localProvider().isAvailable();
const it = testIf(
  all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }),
);
const ecrBuilt = await ensureVendorPlugin(ECR_RECIPE, { version: ECR_PLUGIN_VERSION, cachedOnly: true }).catch(
  () => undefined,
);
const itEcr = testIf(
  all(
    isRoot(),
    available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` },
    ecrBuilt
      ? { ok: true }
      : {
          ok: false,
          reason: `ecr-credential-provider ${ECR_PLUGIN_VERSION} is not built (credprov run --suite vendor-ecr builds it)`,
        },
  ),
);
const TIMEOUT_MS = 300_000;
const LIVE_IDS = [
  'KP-LIVE-CONFIG-LOADED',
  'KP-LIVE-INVOKED',
  'KP-LIVE-PULL',
  'KP-LIVE-CACHE',
  'KP-LIVE-NO-PLUGIN-ERRORS',
  'KP-LIVE-UPGRADE-RENAME',
];

let dir: string | undefined;
let registry: StartedRegistry | undefined;
const workDir = async () => (dir ??= await mkdtemp(join(tmpdir(), 'credprov-certify-live-')));

/** An htpasswd+TLS registry with two images, and a fake-provider config whose scenario answers for it. */
async function fakeProviderSetup(
  name: string,
  scenario: (host: string, user: { username: string; password: string }) => Record<string, unknown>,
) {
  const d = await workDir();
  const user = generatedUser('credprov');
  registry ??= await processProvider().start({
    name: `certify-live-${Date.now().toString(36).slice(-4)}`,
    auth: Auth.htpasswd([user]),
    tls: true,
  });
  const image = await busyboxImage({ marker: 'credprov-certify-live' });
  await registry.push(image, { name: 'live/app', tag: 'v1' });
  await registry.push(image, { name: 'live/other', tag: 'v1' });
  const scenarioFile = join(d, `${name}.scenario.json`);
  await writeFile(scenarioFile, JSON.stringify(scenario(registry.host, user)));
  const config = join(d, `${name}.yaml`);
  await writeFile(
    config,
    stringify({
      apiVersion: 'kubelet.config.k8s.io/v1',
      kind: 'CredentialProviderConfig',
      providers: [
        {
          name,
          apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
          matchImages: [registry.host],
          defaultCacheDuration: '1m',
          env: [{ name: 'CREDPROV_FAKE_SCENARIO', value: scenarioFile }],
        },
      ],
    }),
  );
  return {
    config,
    images: [`${registry.host}/live/app:v1`, `${registry.host}/live/other:v1`],
    ca: registry.caCertPath!,
    password: user.password,
  };
}

async function certify(
  args: string[],
  reportDir: string,
): Promise<{ code: number; report: RunReport; stderr: string }> {
  const r = await runCli(['certify', 'kubelet-plugin', ...args, '--live', '--report-dir', reportDir], {
    log: noopLogger,
    env: { ...process.env, CREDPROV_ENV_NAME: ENV_NAME },
  });
  const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as RunReport;
  return { code: r.code, report, stderr: r.stderr };
}

const statusOf = (report: RunReport) =>
  Object.fromEntries(
    report.checks
      .filter((c) => c.id.startsWith('KP-LIVE-'))
      .map((c) => [c.id, `${c.status}: ${c.message.slice(0, 400)}`]),
  );

describe('certify kubelet-plugin --live', () => {
  afterAll(async () => {
    await localProvider().down(ENV_NAME);
    await registry?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it(
    "LIVE-FAKE: credprov's fake provider passes every live check (exec for the first image, cached for the second under its Registry key, nothing for an unmatched image, no errors)",
    async () => {
      const s = await fakeProviderSetup('credprov-fake', (host, user) => ({
        rules: [{ match: [host], auth: { '{registry}': user }, cacheKeyType: 'Registry', cacheDuration: '5m' }],
      }));
      const { code, report } = await certify(
        [
          '--plugin',
          FAKE,
          '--config',
          s.config,
          ...s.images.flatMap((i) => ['--image', i]),
          '--verify-pull',
          '--verify-pull-ca',
          s.ca,
        ],
        join(await workDir(), 'fake-report'),
      );
      const live = statusOf(report);
      expect(Object.keys(live).sort()).toEqual([...LIVE_IDS].sort());
      for (const id of LIVE_IDS) expect(live[id]).toMatch(/^passed: /);
      expect(live['KP-LIVE-CACHE']).toMatch(/live\/other:v1: cached/);
      // Registry/5m: the first image again after the rename is served from the cache the old file filled.
      expect(live['KP-LIVE-UPGRADE-RENAME']).toMatch(/live\/app:v1 after the rename: no exec \(cached\), as predicted/);
      expect(code).toBe(0);
      expect(JSON.stringify(report)).not.toContain(s.password);
    },
    TIMEOUT_MS,
  );

  itEcr(
    'LIVE-ECR: the unmodified ecr-credential-provider passes every hermetic and live MUST check against the fake ECR API',
    async () => {
      const lab = await startEcrCertifyLab({ dir: join(await workDir(), 'ecr-lab') });
      try {
        const { code, report } = await certify(
          [
            '--plugin',
            lab.plugin.path,
            '--config',
            lab.configFile,
            ...lab.images.flatMap((i) => ['--image', i]),
            '--verify-pull',
            '--verify-pull-ca',
            lab.caFile,
            '--registry-for',
            lab.registryFor,
          ],
          join(await workDir(), 'ecr-report'),
        );
        const failed = report.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.message}`);
        expect(failed).toEqual([]);
        for (const id of LIVE_IDS) expect(statusOf(report)[id]).toMatch(/^passed: /);
        expect(code).toBe(0);
        // The kubelet's execs reached the fake ECR; nothing else was called.
        expect(lab.fake.requests().filter((r) => r.service !== 'ecr')).toEqual([]);
        const text = JSON.stringify(report);
        for (const secret of lab.secrets) expect(text).not.toContain(secret);
      } finally {
        await lab.stop();
      }
    },
    TIMEOUT_MS,
  );

  it(
    "LIVE-ERRORS: a plugin that fails for its images shows in the kubelet's error counter and fails the pulls",
    async () => {
      const s = await fakeProviderSetup('credprov-failing', (host) => ({
        rules: [{ match: [host], respond: false, exitCode: 1, stderr: 'credprov: no credentials today for {image}\n' }],
      }));
      const { code, report } = await certify(
        ['--plugin', FAKE, '--config', s.config, ...s.images.flatMap((i) => ['--image', i])],
        join(await workDir(), 'failing-report'),
      );
      const live = statusOf(report);
      expect(live['KP-LIVE-NO-PLUGIN-ERRORS']).toMatch(
        /^failed: .*kubelet_credential_provider_plugin_errors_total\{plugin_name="credprov-failing"\} rose by [1-9]/,
      );
      expect(live['KP-LIVE-PULL']).toMatch(/^failed: /);
      expect(live['KP-LIVE-INVOKED']).toMatch(/^passed: /);
      // A failing plugin is still the config the kubelet loaded.
      expect(live['KP-LIVE-CONFIG-LOADED']).toMatch(/^passed: /);
      expect(code).toBe(1);
    },
    TIMEOUT_MS,
  );
});
