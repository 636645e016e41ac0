// The mirrors suite on a real local cluster: every case's prediction (the
// containerd hosts model over the pull-credentials model) must agree with
// what containerd and the kubelet did; every login that crossed to another
// registry is named by a failing SHOULD check, and no secret reaches a file.
import { describe, expect } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { exitCodeFor } from '../../src/report/model.ts';
import { suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { filesUnder, leaks, RecordingRedactor } from '../../src/testing/secret-scan.ts';
import { MIRRORS_CHECKS } from '../../suites/mirrors/checks.ts';
import { mirrorsSuite } from '../../suites/mirrors/index.ts';

const TIMEOUT_MS = 300_000;
const redactor = new RecordingRedactor();
const { it, run, dir, verdict, result } = await suiteOnLocalCluster(mirrorsSuite, {
  envName: e2eEnvName('mirrors'),
  redactor,
});

describe('mirrors suite on a local cluster', () => {
  for (const check of MIRRORS_CHECKS.filter((c) => c.level === 'MUST')) {
    it(
      `${check.id}: containerd and the kubelet agree with the containerd hosts model`,
      async () => {
        expect(await verdict(check.id)).toMatch(/^passed: /);
        expect((await result(check.id))?.comparison?.agree).toBe(true);
      },
      TIMEOUT_MS,
    );
  }

  for (const check of MIRRORS_CHECKS.filter((c) => c.level === 'SHOULD')) {
    it(
      `${check.id}: the crossings are the predicted ones, and a crossing fails the SHOULD by name`,
      async () => {
        const r = await result(check.id);
        expect(r?.comparison?.agree).toBe(true);
        const crossed = r!.comparison!.observed as string[];
        if (crossed.length === 0) expect(r!.status).toBe('passed');
        else {
          expect(r!.status).toBe('failed');
          for (const x of crossed) expect(r!.message).toContain(`CREDENTIAL CROSSED: ${x}`);
        }
      },
      TIMEOUT_MS,
    );
  }

  it(
    'MIRRORS-EXIT: crossings are SHOULD failures, so the run exits 0 when every MUST agrees',
    async () => {
      const { report } = await run();
      expect(exitCodeFor(report)).toBe(0);
    },
    TIMEOUT_MS,
  );

  it(
    'MIRRORS-SECRETS: no password or Basic auth value reaches any file the run wrote',
    async () => {
      const { report } = await run();
      // The labs registered every password they issued (the origin's, the 401 mirror's, the wrong ones).
      expect(redactor.seen.length).toBeGreaterThanOrEqual(4);
      expect(await leaks(dir(), redactor.seen)).toEqual([]);
      const texts = [JSON.stringify(report)];
      for (const f of await filesUnder(dir())) texts.push(await readFile(f, 'utf8').catch(() => ''));
      expect(texts.length).toBeGreaterThan(5);
      for (const text of texts) {
        expect(text).not.toMatch(/"password":\s*"(?!<redacted>)/);
        expect(text).not.toMatch(/"auth":\s*"(?!<redacted>)[A-Za-z0-9+/=]{8,}"/);
        expect(text).not.toMatch(/Basic [A-Za-z0-9+/=]{8,}/);
      }
    },
    TIMEOUT_MS,
  );

  it(
    'MIRRORS-TEARDOWN: the run tears down the environment it brought up',
    async () => {
      const { tornDown } = await run();
      expect(tornDown).toBe(true);
    },
    TIMEOUT_MS,
  );
});
