import { describe, test, expect } from '@jest/globals';
import { noopLogger } from '../../core/logger.ts';
import { Redactor } from '../../core/redact.ts';
import type { PullCheck } from '../../../registry/index.ts';
import type { CertifyContext } from './certify.ts';
import { pullRef, verifyPull } from './verify-pull.ts';

function ctx(auths: Array<Record<string, { username: string; password: string }>>, images: string[]): CertifyContext {
  return {
    probes: images.map((image, i) => ({
      image,
      invocation: {} as never,
      analysis: { accepted: true, object: { auth: auths[i] }, verdicts: {} as never },
    })),
    images,
    redactor: new Redactor(),
    logger: noopLogger,
    timeoutMs: 1000,
  } as unknown as CertifyContext;
}

describe('pullRef', () => {
  test('keeps the tag the user gave for the probed repository', () => {
    expect(pullRef('registry.test:5000/credprov/busybox', ['registry.test:5000/credprov/busybox:v2'])).toBe(
      'registry.test:5000/credprov/busybox:v2',
    );
  });
  test('asks for latest when the user gave no image for it', () => {
    expect(pullRef('registry.test:5000/app', [])).toBe('registry.test:5000/app:latest');
  });
});

describe('verifyPull', () => {
  test('tries matching auth entries in the kubelet keyring order until one opens the image', async () => {
    const asked: string[] = [];
    const fake = async (_ref: string, creds: { username: string } | undefined): Promise<PullCheck> => {
      asked.push(creds!.username);
      return creds!.username === 'host'
        ? { ok: true, status: 200, step: 'manifest', reason: 'ok' }
        : { ok: false, status: 401, step: 'manifest', reason: '401' };
    };
    const c = ctx(
      [
        {
          'r.test:5000': { username: 'host', password: 'p1-secret' },
          'r.test:5000/app': { username: 'path', password: 'p2-secret' },
          'other.test': { username: 'x', password: 'p3-secret' },
        },
      ],
      ['r.test:5000/app'],
    );
    const out = await verifyPull(c, { canPull: fake as never });
    expect(asked).toEqual(['path', 'host']);
    expect(out.status).toBe('passed');
  });

  test('fails with one line naming the image, the key and the registry answer, never the password', async () => {
    const fake = async (): Promise<PullCheck> => ({
      ok: false,
      status: 401,
      step: 'manifest',
      reason: 'GET manifest app:latest: 401: UNAUTHORIZED authentication required',
    });
    const c = ctx([{ 'r.test:5000': { username: 'alice', password: 'wrong-secret' } }], ['r.test:5000/app']);
    const out = await verifyPull(c, { canPull: fake as never });
    expect(out.status).toBe('failed');
    expect(out.message).toBe(
      'r.test:5000/app:latest: the credentials for auth key r.test:5000 (user alice) did not open it: GET manifest app:latest: 401: UNAUTHORIZED authentication required',
    );
    expect(c.redactor.text(JSON.stringify(out))).not.toContain('wrong-secret');
  });

  test('fails when no auth entry of the response matches the image', async () => {
    const out = await verifyPull(ctx([{ 'elsewhere.test': { username: 'a', password: 'b' } }], ['r.test:5000/app']), {
      canPull: (async () => {
        throw new Error('not called');
      }) as never,
    });
    expect(out).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('no auth entry matching the image (keys: elsewhere.test)'),
    });
  });

  test('skips when the plugin gave no accepted response', async () => {
    const c = { probes: [], images: [], redactor: new Redactor() } as unknown as CertifyContext;
    expect((await verifyPull(c, {})).status).toBe('skipped');
  });
});
