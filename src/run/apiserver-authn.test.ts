import { afterAll, describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { TokenBook } from '../authn/token-book.ts';
import { noopLogger } from '../core/logger.ts';
import { silentProgress } from '../core/progress.ts';
import { Redactor } from '../core/redact.ts';
import { useTempDir } from '../testing/tmp.ts';
import { startTokenWebhookFor } from './apiserver-authn.ts';
import type { Stoppable, SuiteSetup } from './suite.ts';

const tmp = useTempDir('credprov-apiserver-authn-');
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

function setup(artifactsDir: string): SuiteSetup {
  return {
    log: noopLogger,
    progress: silentProgress,
    artifactsDir,
    redactor: new Redactor(),
    processEnv: { CREDPROV_STATE_DIR: join(artifactsDir, 'state') },
    ci: false,
    environmentName: `unit-authn-${process.pid}`,
    kubeVersion: 'v1.37.1',
    defer: (c) => cleanups.push(c),
    async own<T extends Stoppable>(started: Promise<T> | T): Promise<T> {
      const s = await started;
      cleanups.push(() => s.stop());
      return s;
    },
  };
}

describe('startTokenWebhookFor', () => {
  test("the environment's webhook, stopped with the suite, reviewing with the suite's book; this run's reviews in the artifacts", async () => {
    const artifacts = tmp();
    const reviewLog = join(artifacts, 'webhook-reviews.jsonl');
    await writeFile(reviewLog, '{"an":"earlier run"}\n');
    const book = new TokenBook();
    const { hook, files } = await startTokenWebhookFor(setup(artifacts), book);
    expect(hook.book).toBe(book);
    expect(existsSync(files.kubeconfigFile)).toBe(true);
    expect(cleanups).toHaveLength(1);

    const token = book.issue('alice').token;
    const ca = await readFile(files.caFile);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${files.url}/authenticate`,
        { method: 'POST', ca, headers: { 'content-type': 'application/json' } },
        (res) => (res.resume(), res.on('end', () => resolve(res.statusCode ?? 0))),
      );
      req.on('error', reject);
      req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }));
    });
    expect(status).toBe(200);
    const lines = (await readFile(reviewLog, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('earlier run');
    expect(lines[0]).not.toContain(token);
  });
});
