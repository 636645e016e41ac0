import { describe, expect, test, afterAll, beforeAll } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { parse } from 'yaml';
import { useTempDir } from '../testing/tmp.ts';
import { TokenBook, tokenFingerprint } from './token-book.ts';
import { EXEC_PLUGIN_GROUP, ISSUE_KEY_HEADER, startTokenWebhook, type StartedTokenWebhook } from './token-webhook.ts';
import {
  ensureTokenWebhookFiles,
  tokenWebhookAddress,
  TOKEN_WEBHOOK_PORT,
  type TokenWebhookFiles,
} from './webhook-files.ts';

describe('TokenBook', () => {
  test('a token is accepted until it expires, then refused as expired; a revoked one as revoked; an unknown one as unknown', () => {
    let now = 1_000_000;
    const book = new TokenBook({ now: () => now });
    const t = book.issue('alice', { lifetimeMs: 5000 });
    expect(book.lookup(t.token).verdict).toBe('authenticated');
    now += 5000;
    expect(book.lookup(t.token).verdict).toBe('authenticated');
    now += 1;
    expect(book.lookup(t.token).verdict).toBe('expired');
    const u = book.issue('alice');
    expect(book.revoke({ fingerprint: u.fingerprint })).toEqual([u.fingerprint]);
    expect(book.lookup(u.token).verdict).toBe('revoked');
    expect(book.lookup('never-issued').verdict).toBe('unknown');
  });

  test('the policy issues the next N tokens already revoked, then good ones, with its lifetime', () => {
    const book = new TokenBook({ now: () => 0 });
    book.setPolicy('bob', { rejectNext: 1, lifetimeMs: null });
    const first = book.issue('bob');
    const second = book.issue('bob');
    expect(book.lookup(first.token).verdict).toBe('revoked');
    expect(book.lookup(second.token).verdict).toBe('authenticated');
    expect(second.expiresAt).toBeUndefined();
  });

  test('every raw token goes to onIssue (the redactor) and list() never shows one', () => {
    const seen: string[] = [];
    const book = new TokenBook({ onIssue: (t) => seen.push(t) });
    const t = book.issue('carol');
    expect(seen).toEqual([t.token]);
    expect(JSON.stringify(book.list())).not.toContain(t.token);
    expect(book.list()[0]!.fingerprint).toBe(tokenFingerprint(t.token));
  });

  test('revoking by subject revokes every live token of that subject only', () => {
    const book = new TokenBook();
    const a1 = book.issue('a');
    const a2 = book.issue('a');
    const b = book.issue('b');
    expect(book.revoke({ subject: 'a' }).sort()).toEqual([a1.fingerprint, a2.fingerprint].sort());
    expect(book.lookup(b.token).verdict).toBe('authenticated');
  });
});

describe('token webhook over https', () => {
  const tmp = useTempDir('credprov-webhook-');
  let files: TokenWebhookFiles;
  let hook: StartedTokenWebhook;
  beforeAll(async () => {
    files = await ensureTokenWebhookFiles(`unit-${process.pid}`, { CREDPROV_STATE_DIR: tmp() });
    hook = await startTokenWebhook({
      address: files.address,
      port: files.port,
      certFile: files.certFile,
      keyFile: files.keyFile,
      issueKeyFile: files.issueKeyFile,
      reviewLog: `${tmp()}/reviews.jsonl`,
    });
  });
  afterAll(async () => {
    await hook?.stop();
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const ca = await readFile(files.caFile);
    return new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
      const req = request(
        `${files.url}${path}`,
        { method: 'POST', ca, headers: { 'content-type': 'application/json', ...headers } },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += String(c)));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }),
          );
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  };

  test('the address is a loopback one from the environment name, on the fixed port, and the API server kubeconfig points at /authenticate with the CA', async () => {
    expect(files.address).toBe(tokenWebhookAddress(`unit-${process.pid}`));
    expect(files.address).toMatch(/^127\.41\.\d+\.\d+$/);
    expect(files.port).toBe(TOKEN_WEBHOOK_PORT);
    const kc = parse(await readFile(files.kubeconfigFile, 'utf8')) as {
      clusters: Array<{ cluster: Record<string, string> }>;
    };
    expect(kc.clusters[0]!.cluster).toEqual({
      server: `${files.url}/authenticate`,
      'certificate-authority': files.caFile,
    });
  });

  test('making the files again keeps the CA and the kubeconfig path (so a running API server can be reused)', async () => {
    const again = await ensureTokenWebhookFiles(`unit-${process.pid}`, { CREDPROV_STATE_DIR: tmp() });
    expect(again.kubeconfigFile).toBe(files.kubeconfigFile);
    expect(await readFile(again.caFile, 'utf8')).toBe(await readFile(files.caFile, 'utf8'));
  });

  test('a TokenReview of an issued token authenticates the subject in the exec-plugin group; the review is recorded by fingerprint only', async () => {
    const t = hook.book.issue('probe-a');
    const r = await post('/authenticate', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: t.token, audiences: ['https://127.0.0.1:6443'] },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      status: {
        authenticated: true,
        user: { username: 'credprov:exec:probe-a', uid: t.fingerprint, groups: [EXEC_PLUGIN_GROUP] },
      },
    });
    const last = hook.reviews().at(-1)!;
    expect(last).toMatchObject({
      fingerprint: t.fingerprint,
      verdict: 'authenticated',
      subject: 'probe-a',
      audiences: ['https://127.0.0.1:6443'],
    });
    const logged = await readFile(`${tmp()}/reviews.jsonl`, 'utf8');
    expect(logged).toContain(t.fingerprint);
    expect(logged).not.toContain(t.token);
  });

  test('a revoked token is refused with the reason, and so is an unknown one', async () => {
    const t = hook.book.issue('probe-b');
    hook.book.revoke({ token: t.token });
    const r = await post('/authenticate', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: t.token },
    });
    expect(r.json.status).toEqual({ authenticated: false, error: 'token revoked' });
    // The API server's client adds ?timeout=30s to the path it was given.
    const u = await post('/authenticate?timeout=30s', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 'nope' },
    });
    expect(u.json.status).toEqual({ authenticated: false, error: 'token unknown' });
  });

  test('POST /issue hands out a token only with the issuing key, and the webhook then accepts that token', async () => {
    const key = (await readFile(files.issueKeyFile, 'utf8')).trim();
    expect((await post('/issue', { subject: 'probe-c' })).status).toBe(401);
    expect((await post('/issue', { subject: 'probe-c' }, { [ISSUE_KEY_HEADER]: 'wrong' })).status).toBe(401);
    expect((await post('/issue', { subject: 'Not OK!' }, { [ISSUE_KEY_HEADER]: key })).status).toBe(400);
    const r = await post('/issue', { subject: 'probe-c' }, { [ISSUE_KEY_HEADER]: key });
    expect(r.status).toBe(200);
    expect(r.json.fingerprint).toBe(tokenFingerprint(String(r.json.token)));
    expect(hook.issues().at(-1)).toMatchObject({
      subject: 'probe-c',
      fingerprint: r.json.fingerprint,
      rejected: false,
    });
    expect(hook.book.lookup(String(r.json.token)).verdict).toBe('authenticated');
  });

  test('a second webhook on the same address fails with a message that says the address is taken', async () => {
    await expect(
      startTokenWebhook({
        address: files.address,
        port: files.port,
        certFile: files.certFile,
        keyFile: files.keyFile,
        issueKeyFile: files.issueKeyFile,
      }),
    ).rejects.toThrow(/is in use/);
  });

  test('with a reviewer, a TokenReview is its answer (a fake cloud deciding), recorded with the reason it refused', async () => {
    await hook.stop();
    hook = await startTokenWebhook({
      address: files.address,
      port: files.port,
      certFile: files.certFile,
      keyFile: files.keyFile,
      issueKeyFile: files.issueKeyFile,
      reviewer: async (token) =>
        token.startsWith('signed-')
          ? { ok: true, subject: token.slice(7), username: `ocid:${token.slice(7)}`, groups: [] }
          : { ok: false, reason: 'NotAuthenticated: the signature does not verify' },
    });
    const review = (token: string) =>
      post('/authenticate', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    expect((await review('signed-u1')).json.status).toEqual({
      authenticated: true,
      user: { username: 'ocid:u1', uid: tokenFingerprint('signed-u1'), groups: [] },
    });
    expect((await review('forged')).json.status).toEqual({
      authenticated: false,
      error: 'NotAuthenticated: the signature does not verify',
    });
    expect(hook.reviews().map((r) => [r.verdict, r.username ?? r.reason])).toEqual([
      ['authenticated', 'ocid:u1'],
      ['unknown', 'NotAuthenticated: the signature does not verify'],
    ]);
  });
});
