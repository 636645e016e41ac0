// The exec-plugin-401 suite under jest: a real local cluster whose
// kube-apiserver authenticates bearer tokens through credprov's token webhook,
// and the four real clients (kubectl, client-go, client-node, python) running
// the fake exec plugin. Every check (credprov's model vs what the client did)
// must pass; the report carries the client × behaviour table; a second run
// reuses the running environment (the webhook and the OIDC issuer answer at
// the same address with the same CA; the issuer's keys are new, and the API
// server fetches them on their unknown kid); no token reaches the report or
// the artifacts.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OIDC_ISSUER_PORT, tokenWebhookAddress, TOKEN_WEBHOOK_PORT } from '../../src/authn/webhook-files.ts';
import { availableProbes } from '../../src/clients/index.ts';
import { CLIENT_NAMES } from '../../src/clients/probe.ts';
import { localProvider } from '../../src/cluster/local/index.ts';
import { Redactor } from '../../src/core/redact.ts';
import { toMarkdown } from '../../src/report/markdown.ts';
import { runSuites, type RunOutcome } from '../../src/run/runner.ts';
import { all, isRoot, testIf, type Prerequisite } from '../../src/testing/prerequisites.ts';
import { execPlugin401Suite } from '../../suites/exec-plugin-401/index.ts';
import { CLIENT_TABLE, EXEC401_CHECKS } from '../../suites/exec-plugin-401/checks.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const available = await localProvider().isAvailable();
// The suite builds the client-go probe itself when it is missing; the others come from setup (python) and npm (client-node).
const clients: Prerequisite[] = (await availableProbes())
  .filter((p) => p.probe.name !== 'client-go')
  .map((p) => (p.availability.ok ? { ok: true } : { ok: false, reason: `${p.probe.name}: ${p.availability.reason}` }));
const it = testIf(
  all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }, ...clients),
);
// CREDPROV_ENV_NAME lets a shared machine keep its environments apart.
const ENV_NAME = process.env.CREDPROV_ENV_NAME ?? e2eEnvName('exec-plugin-401');
const TIMEOUT_MS = 600_000;

describe('exec-plugin-401 suite on a local cluster', () => {
  let first: Promise<RunOutcome> | undefined;
  let second: Promise<RunOutcome> | undefined;
  const dirs: string[] = [];
  const redactor = new Redactor();

  const runOnce = async (keep: boolean): Promise<RunOutcome> => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-exec-401-'));
    dirs.push(dir);
    return runSuites([execPlugin401Suite], {
      baseSpec: {
        name: ENV_NAME,
        provider: 'local',
        ...(process.env.CREDPROV_KUBE_BIN_DIR ? { binDir: process.env.CREDPROV_KUBE_BIN_DIR } : {}),
      },
      artifactsDir: dir,
      redactor,
      keep,
    });
  };
  // The first run keeps its environment; the second must reuse it.
  const run = (): Promise<RunOutcome> => (first ??= runOnce(true));
  const rerun = (): Promise<RunOutcome> => (second ??= run().then(() => runOnce(false)));

  afterAll(async () => {
    await localProvider().down(ENV_NAME);
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  }, 120_000);

  it(
    'EX401: every check of the suite passed against the real API server and clients',
    async () => {
      const { report } = await run();
      const notPassed = report.checks
        .filter((c) => c.status !== 'passed')
        .map((c) => `${c.id} ${c.status}${c.cause ? ` (${c.cause})` : ''}: ${c.message}`);
      expect(notPassed).toEqual([]);
      expect(report.checks.map((c) => c.id).sort()).toEqual(EXEC401_CHECKS.map((c) => c.id).sort());
    },
    TIMEOUT_MS,
  );

  for (const check of EXEC401_CHECKS) {
    it(
      `${check.id}: ${check.title}`,
      async () => {
        const { report } = await run();
        const result = report.checks.find((c) => c.id === check.id);
        expect(result ? `${result.status}: ${result.message}` : `${check.id} did not report`).toMatch(/^passed: /);
      },
      TIMEOUT_MS,
    );
  }

  it(
    'EX401-TABLE: report.md has the client × behaviour table, one column per client, a cell per check',
    async () => {
      const { report } = await run();
      const md = toMarkdown(report);
      expect(md).toContain(`### ${CLIENT_TABLE}`);
      expect(md).toContain(`| | ${CLIENT_NAMES.join(' | ')} |`);
      const cells = report.checks.filter((c) => c.cell);
      expect(cells).toHaveLength(EXEC401_CHECKS.filter((c) => c.cell).length);
      expect(cells.every((c) => c.cell!.text && c.cell!.text.length > 0)).toBe(true);
    },
    TIMEOUT_MS,
  );

  it(
    'EX401-SECRETS: no token the webhook issued or the plugin returned reaches the report or the artifacts',
    async () => {
      const { report } = await run();
      const token = /cp401\.[A-Za-z0-9_.-]{20,}/;
      expect(JSON.stringify(report)).not.toMatch(token);
      const files = (await readdir(dirs[0]!, { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name));
      expect(files.length).toBeGreaterThan(10);
      const leaking = [];
      for (const f of files) if (token.test(await readFile(f, 'utf8'))) leaking.push(f);
      expect(leaking).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    'EX401-JWT-SECRETS: no JWT the issuer signed reaches the report or the artifacts (fingerprints only)',
    async () => {
      const { report } = await run();
      // A compact JWS whose header is ES256 JSON: eyJ… . eyJ… . signature.
      const jwt = /eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}/;
      const jwtChecks = report.checks.filter((c) => c.id.startsWith('EX401-JWT') || c.id.startsWith('EX401-JWKS'));
      expect(jwtChecks).toHaveLength(3);
      expect(JSON.stringify(jwtChecks)).toMatch(/tokenFingerprint/);
      expect(JSON.stringify(report)).not.toMatch(jwt);
      const files = (await readdir(dirs[0]!, { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name));
      const leaking = [];
      for (const f of files) if (jwt.test(await readFile(f, 'utf8'))) leaking.push(f);
      expect(leaking).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    'EX401-REUSE: a second run reuses the running environment (same API server, same webhook and issuer address) and passes again; its webhook and issuer are stopped afterwards',
    async () => {
      const a = await run();
      const b = await rerun();
      expect(b.environment?.startedAt).toBe(a.environment?.startedAt);
      expect(b.report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
      const open = (port: number) =>
        new Promise<boolean>((resolve) => {
          const s = connect({ host: tokenWebhookAddress(ENV_NAME), port });
          s.once('connect', () => {
            s.destroy();
            resolve(true);
          });
          s.once('error', () => resolve(false));
        });
      expect(await open(TOKEN_WEBHOOK_PORT)).toBe(false);
      expect(await open(OIDC_ISSUER_PORT)).toBe(false);
    },
    TIMEOUT_MS * 2,
  );
});
