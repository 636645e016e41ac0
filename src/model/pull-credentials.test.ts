import { describe, expect, test } from '@jest/globals';
import { keyringLookup, predictPull } from './pull-credentials.ts';

const HOST = 'reg.test:5000';
const IMAGE = `${HOST}/secrets/app:v1`;
const right = { username: 'alice', works: true };
const wrong = { username: 'mallory', works: false };

describe('pull credentials model', () => {
  test('every pod secret is tried in pod order until one works', () => {
    const p = predictPull({
      image: IMAGE,
      secrets: [
        { name: 'w', auths: { [HOST]: wrong } },
        { name: 'r', auths: { [HOST]: right } },
      ],
    });
    expect(p).toMatchObject({ pull: 'success', usedBy: 'secret r' });
    expect(p.attempts.map((a) => a.source)).toEqual(['secret w', 'secret r']);
  });

  test('the first working credential ends the pull: later ones are not tried', () => {
    const p = predictPull({
      image: IMAGE,
      secrets: [
        { name: 'r', auths: { [HOST]: right } },
        { name: 'w', auths: { [HOST]: wrong } },
      ],
    });
    expect(p.attempts.map((a) => a.source)).toEqual(['secret r']);
  });

  test('pod secrets come before credential providers', () => {
    const providers = (creds: typeof right) => [
      { name: 'p', matchImages: [`${HOST}/secrets`], auths: { [HOST]: creds } },
    ];
    const a = predictPull({
      image: IMAGE,
      secrets: [{ name: 'w', auths: { [HOST]: wrong } }],
      providers: providers(right),
    });
    expect(a).toMatchObject({ pull: 'success', usedBy: 'provider p' });
    expect(a.attempts.map((x) => x.source)).toEqual(['secret w', 'provider p']);
    const b = predictPull({
      image: IMAGE,
      secrets: [{ name: 'r', auths: { [HOST]: right } }],
      providers: providers(wrong),
    });
    expect(b).toMatchObject({ pull: 'success', usedBy: 'secret r', attempts: [{ source: 'secret r' }] });
  });

  test('a provider whose matchImages miss the image offers nothing', () => {
    const p = predictPull({
      image: IMAGE,
      secrets: [],
      providers: [{ name: 'p', matchImages: [`${HOST}/other`], auths: { [HOST]: right } }],
    });
    expect(p).toMatchObject({ pull: 'failure', attempts: [] });
  });

  test('a missing secret is skipped and a placeholder {} offers nothing: one anonymous pull', () => {
    const missing = predictPull({
      image: IMAGE,
      secrets: [{ name: 'later', exists: false, auths: { [HOST]: right } }],
    });
    expect(missing).toMatchObject({ pull: 'failure', attempts: [] });
    expect(missing.because).toMatch(/missing secret later skipped/);
    expect(predictPull({ image: IMAGE, secrets: [{ name: 'empty', auths: {} }] })).toMatchObject({
      pull: 'failure',
      attempts: [],
    });
    expect(predictPull({ image: IMAGE, secrets: [], publicImage: true })).toMatchObject({
      pull: 'success',
      attempts: [],
    });
  });

  test('credentials for another registry do not apply; wrong ones alone fail', () => {
    expect(predictPull({ image: IMAGE, secrets: [{ name: 'o', auths: { 'other.test:5000': right } }] })).toMatchObject({
      pull: 'failure',
      attempts: [],
    });
    expect(
      predictPull({ image: IMAGE, secrets: [{ name: 'w', auths: { [`https://${HOST}/v2/`]: wrong } }] }),
    ).toMatchObject({ pull: 'failure', attempts: [{ source: 'secret w' }] });
  });

  test('keyring keys are walked in reverse order: a longer path key before the bare host', () => {
    const entries = [
      { source: 'host', key: HOST, credential: wrong },
      { source: 'path', key: `${HOST}/secrets`, credential: right },
    ];
    expect(keyringLookup(entries, `${HOST}/secrets/app`).map((e) => e.source)).toEqual(['path', 'host']);
  });

  test('index.docker.io serves Docker Hub images when no other key matched', () => {
    const p = predictPull({
      image: 'busybox',
      secrets: [{ name: 'hub', auths: { 'https://index.docker.io/v1/': right } }],
    });
    expect(p).toMatchObject({ pull: 'success', usedBy: 'secret hub' });
  });
  test('the node config.json comes after pod secrets and before providers', () => {
    const p = predictPull({
      image: 'reg.test:5000/app:v1',
      secrets: [{ name: 's', auths: { 'reg.test:5000': { username: 'secret', works: false } } }],
      node: { 'reg.test:5000': { username: 'node', works: true } },
      providers: [
        {
          name: 'p',
          matchImages: ['reg.test:5000'],
          auths: { 'reg.test:5000': { username: 'provider', works: true } },
        },
      ],
    });
    expect(p.attempts.map((a) => a.source)).toEqual(['secret s', 'node config.json']);
    expect(p.usedBy).toBe('node config.json');
  });
});
