// The e2e table's further tests over a suite's run (suite-table.ts): what the
// per-check tests cannot say (the report's shape, secrets kept out of every
// file, the environment torn down, a CLI command on the same environment).
import { expect } from '@jest/globals';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { OIDC_ISSUER_PORT, tokenWebhookAddress, TOKEN_WEBHOOK_PORT } from '../../src/authn/webhook-files.ts';
import { EXEC_CLIENT_NAMES } from '../../src/clients/probe.ts';
import { layoutFor } from '../../src/cluster/local/layout.ts';
import { Redactor } from '../../src/core/redact.ts';
import { toMarkdown } from '../../src/report/markdown.ts';
import { exitCodeFor } from '../../src/report/model.ts';
import { writeReports } from '../../src/report/write.ts';
import { runCli } from '../../src/testing/cli.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { filesUnder, leaks, type RecordingRedactor } from '../../src/testing/secret-scan.ts';
import { suitesRun, type SuitesOnProvider } from '../../src/testing/suite-on-provider.ts';
import { CLIENT_TABLE, EXEC401_CHECKS } from '../../suites/exec-plugin-401/checks.ts';
import { execPlugin401Suite } from '../../suites/exec-plugin-401/index.ts';

const JWT = /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./;

/** `<ID>-TEARDOWN`: a run that brought its environment up tears it down (local: the kind leg keeps its cluster for down). */
export const teardownExtra =
  (id: string) =>
  (h: SuitesOnProvider, timeoutMs: number): void => {
    if (h.provider !== 'local') return;
    h.it(
      `${id}-TEARDOWN: the run tears down the environment it brought up`,
      async () => {
        const { tornDown } = await h.run();
        expect(tornDown).toBe(true);
      },
      timeoutMs,
    );
  };

export function matchingExtras(h: SuitesOnProvider, timeoutMs: number): void {
  h.it(
    'MATCH-REPORT: report groups the checks under the suite with its wall time',
    async () => {
      const { report } = await h.run();
      const mine = report.suites?.find((s) => s.name === 'matching');
      expect(mine?.durationMs).toBeGreaterThan(0);
      expect(report.checks.filter((c) => c.id.startsWith('MATCH-')).every((c) => c.suite === 'matching')).toBe(true);
    },
    timeoutMs,
  );
  if (h.provider !== 'local') return;
  const processEnv = { ...process.env, CREDPROV_ENV_NAME: e2eEnvName('matching') };
  h.it(
    'EXPLAIN-LIVE: explain --live --json reports per provider the prediction and what the kubelet did, and exits 0 when they agree',
    async () => {
      await h.run();
      const cfg = join(h.dir(), 'providers.yaml');
      const provider = (name: string, matchImages: string[], defaultCacheDuration: string) => ({
        name,
        matchImages,
        defaultCacheDuration,
        apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
      });
      await writeFile(
        cfg,
        stringify({
          apiVersion: 'kubelet.config.k8s.io/v1',
          kind: 'CredentialProviderConfig',
          providers: [
            provider('ecr', ['*.dkr.ecr.*.amazonaws.com'], '12h'),
            provider('corp', ['registry.example.com'], '1m'),
          ],
        }),
      );
      const images = ['123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:1', 'registry.example.com:5000/x:1'];
      const r = await runCli(
        ['explain', '--live', '--json', '--config', cfg, ...images.flatMap((i) => ['--image', i])],
        {
          env: processEnv,
        },
      );
      expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr.slice(-2000) }).toEqual({ code: 0, stderr: '' });
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
        agree: boolean;
        images: Array<{ providers: Array<{ name: string; live: { invoked: boolean } }>; pull: unknown }>;
      };
      expect(out.agree).toBe(true);
      expect(out.images[0]!.providers.find((p) => p.name === 'ecr')!.live.invoked).toBe(true);
      expect(out.images[0]!.pull).toEqual({ predicted: 'success', live: 'success' });
      // The port in the image is not in the pattern: corp is never exec'd, and the pull has no credentials.
      expect(out.images[1]!.providers.every((p) => !p.live.invoked)).toBe(true);
      expect(out.images[1]!.pull).toEqual({ predicted: 'failure', live: 'failure' });
    },
    timeoutMs,
  );
  h.it('EXPLAIN-LIVE-BAD-INPUT: an invalid image is refused before any cluster work, exit 2', async () => {
    const config = join(import.meta.dirname, '..', '..', 'fixtures', 'configs', 'valid-minimal.yaml');
    const r = await runCli(['explain', '--live', '--config', config, '--image', 'app/Case:v1'], { env: processEnv });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/must be lowercase/);
  });
}

export function espiExtras(h: SuitesOnProvider, timeoutMs: number): void {
  h.it(
    "ESPI-REPORT: report.md shows each policy's matrix as a table",
    async () => {
      const { report } = await h.run();
      const out = join(h.dir(), 'report');
      await writeReports(report, out, new Redactor());
      const md = await readFile(join(out, 'report.md'), 'utf8');
      for (const policy of ['NEVERVERIFY', 'NEVERVERIFYPRELOADED', 'ALLOWLISTED', 'ALWAYSVERIFY'])
        expect(md).toContain(`### ESPI-MATRIX-${policy}: matrix (PASS)`);
      expect(md).toMatch(
        /\| Never\/wrong-secret\/kubelet \| ErrImageNeverPull \| ErrImageNeverPull \| mustAuthenticate \|/,
      );
      expect(report.suites?.[0]?.durationMs).toBeGreaterThan(0);
    },
    timeoutMs,
  );
}

export function saExtras(h: SuitesOnProvider, timeoutMs: number): void {
  h.it(
    'SA-REPORT: the checks sit under the suite; no service-account token reaches the report or the artifacts',
    async () => {
      const { report } = await h.run();
      expect(
        report.checks.filter((c) => c.id.startsWith('SA-')).every((c) => c.suite === 'service-account-token'),
      ).toBe(true);
      expect(JSON.stringify(report)).not.toMatch(JWT);
      const suiteDir = join(h.dir(), 'service-account-token');
      const files = (await readdir(suiteDir, { recursive: true })).map(String);
      for (const f of files.filter((x) => /\.(log|jsonl?|json)$/.test(x))) {
        const text = await readFile(join(suiteDir, f), 'utf8');
        expect({ file: f, jwt: /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/.test(text) }).toEqual({
          file: f,
          jwt: false,
        });
      }
    },
    timeoutMs,
  );
}

/** The mirrors suite's SHOULDs fail by name for each login that crossed; the run still exits 0; no secret in any file. */
export function mirrorsExtras(h: SuitesOnProvider, timeoutMs: number): void {
  h.it(
    'MIRRORS-CROSSINGS: the crossings are the predicted ones, and a crossing fails its SHOULD by name',
    async () => {
      const { report } = await h.run();
      const shoulds = report.checks.filter((c) => c.id.startsWith('MIRRORS-') && c.level === 'SHOULD');
      expect(shoulds.length).toBeGreaterThan(0);
      for (const r of shoulds) {
        expect({ id: r.id, agree: r.comparison?.agree }).toEqual({ id: r.id, agree: true });
        const crossed = r.comparison!.observed as string[];
        expect({ id: r.id, status: r.status }).toEqual({ id: r.id, status: crossed.length ? 'failed' : 'passed' });
        for (const x of crossed) expect(r.message).toContain(`CREDENTIAL CROSSED: ${x}`);
      }
    },
    timeoutMs,
  );
  h.it(
    'MIRRORS-EXIT: crossings are SHOULD failures, so a run of the suite exits 0 when every MUST agrees',
    async () => {
      const { report } = await h.run();
      // Its own checks: the kind leg's run holds every kind-capable suite's.
      expect(exitCodeFor({ checks: report.checks.filter((c) => c.suite === 'mirrors') })).toBe(0);
    },
    timeoutMs,
  );
  h.it(
    'MIRRORS-SECRETS: no password or Basic auth value reaches any file the run wrote',
    async () => {
      const { report } = await h.run();
      // The labs registered every password they issued (the origin's, the 401 mirror's, the wrong ones).
      const seen = (h.redactor as RecordingRedactor).seen;
      expect(seen.length).toBeGreaterThanOrEqual(4);
      expect(await leaks(h.dir(), seen)).toEqual([]);
      const texts = [JSON.stringify(report)];
      for (const f of await filesUnder(h.dir())) texts.push(await readFile(f, 'utf8').catch(() => ''));
      expect(texts.length).toBeGreaterThan(5);
      for (const text of texts) {
        expect(text).not.toMatch(/"password":\s*"(?!<redacted>)/);
        expect(text).not.toMatch(/"auth":\s*"(?!<redacted>)[A-Za-z0-9+/=]{8,}"/);
        expect(text).not.toMatch(/Basic [A-Za-z0-9+/=]{8,}/);
      }
    },
    timeoutMs,
  );
  teardownExtra('MIRRORS')(h, timeoutMs);
}

export function downgradeExtras(h: SuitesOnProvider, timeoutMs: number): void {
  if (h.provider !== 'local') return;
  h.it(
    'DOWN-CLEANUP: the node config.json written for the fallback case is removed',
    async () => {
      await h.run();
      expect(existsSync(join(layoutFor(e2eEnvName('downgrade')).kubeletRoot, 'config.json'))).toBe(false);
    },
    timeoutMs,
  );
}

/** Files under `dir` whose text matches `secret`. */
async function leaking(dir: string, secret: RegExp): Promise<string[]> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
  expect(files.length).toBeGreaterThan(10);
  const out: string[] = [];
  for (const f of files) if (secret.test(await readFile(f, 'utf8'))) out.push(f);
  return out;
}

export function exec401Extras(h: SuitesOnProvider, timeoutMs: number): void {
  h.it(
    'EX401-TABLE: report.md has the client × behaviour table, one column per client, a cell per check',
    async () => {
      const { report } = await h.run();
      const md = toMarkdown(report);
      expect(md).toContain(`### ${CLIENT_TABLE}`);
      expect(md).toContain(`| | ${EXEC_CLIENT_NAMES.join(' | ')} |`);
      const cells = report.checks.filter((c) => c.cell);
      expect(cells).toHaveLength(EXEC401_CHECKS.filter((c) => c.cell).length);
      expect(cells.every((c) => c.cell!.text && c.cell!.text.length > 0)).toBe(true);
    },
    timeoutMs,
  );
  h.it(
    'EX401-SECRETS: no token the webhook issued or the plugin returned reaches the report or the artifacts',
    async () => {
      const { report } = await h.run();
      const token = /cp401\.[A-Za-z0-9_.-]{20,}/;
      expect(JSON.stringify(report)).not.toMatch(token);
      expect(await leaking(h.dir(), token)).toEqual([]);
    },
    timeoutMs,
  );
  h.it(
    'EX401-JWT-SECRETS: no JWT the issuer signed reaches the report or the artifacts (fingerprints only)',
    async () => {
      const { report } = await h.run();
      // A compact JWS whose header is ES256 JSON: eyJ… . eyJ… . signature.
      const jwt = /eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}/;
      const jwtChecks = report.checks.filter((c) => c.id.startsWith('EX401-JWT') || c.id.startsWith('EX401-JWKS'));
      expect(jwtChecks).toHaveLength(3);
      expect(JSON.stringify(jwtChecks)).toMatch(/tokenFingerprint/);
      expect(JSON.stringify(report)).not.toMatch(jwt);
      expect(await leaking(h.dir(), jwt)).toEqual([]);
    },
    timeoutMs,
  );
  // The first run keeps its environment (the row's keep); a second run of the same name must reuse it.
  const second = suitesRun(
    execPlugin401Suite,
    { provider: h.provider, envName: h.envName, redactor: h.redactor },
    h.it,
  );
  h.it(
    'EX401-REUSE: a second run reuses the running environment (same API server, same webhook and issuer address) and passes again; its webhook and issuer are stopped afterwards',
    async () => {
      const a = await h.run();
      const b = await second.run();
      try {
        expect(b.environment?.startedAt).toBe(a.environment?.startedAt);
        expect(b.report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
        const open = (port: number) =>
          new Promise<boolean>((resolve) => {
            const s = connect({ host: tokenWebhookAddress(h.envName), port });
            s.once('connect', () => {
              s.destroy();
              resolve(true);
            });
            s.once('error', () => resolve(false));
          });
        expect(await open(TOKEN_WEBHOOK_PORT)).toBe(false);
        expect(await open(OIDC_ISSUER_PORT)).toBe(false);
      } finally {
        await second.down();
      }
    },
    timeoutMs * 2,
  );
}
