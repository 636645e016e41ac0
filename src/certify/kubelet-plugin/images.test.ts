import { describe, expect, test } from '@jest/globals';
import type { CredentialProvider } from '../../api/credentialprovider/types.ts';
import { chooseImages, derivedImages, imageForPattern, unservableImage } from './images.ts';

const provider = (matchImages: string[]): CredentialProvider => ({
  name: 'p',
  matchImages,
  defaultCacheDuration: '5m',
  apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
});

describe('imageForPattern', () => {
  test.each([
    ['*.reg.io', 'credprov.reg.io/credprov/probe'],
    ['127.0.0.1:5000', '127.0.0.1:5000/credprov/probe'],
    ['reg.io/team', 'reg.io/team/credprov/probe'],
    ['reg.io/team/', 'reg.io/team/credprov/probe'],
    ['*.dkr.ecr.*.amazonaws.com', 'credprov.dkr.ecr.credprov.amazonaws.com/credprov/probe'],
    ['app?.reg.io', 'appx.reg.io/credprov/probe'],
    ['app[0-9].reg.io', 'app0.reg.io/credprov/probe'],
  ])('%s → %s', (pattern, image) => {
    expect(imageForPattern(pattern)).toBe(image);
  });
});

describe('choosing probe images', () => {
  test('derives one normalized image per pattern, each matched by its pattern', () => {
    expect(derivedImages(provider(['*.reg.io', 'docker.io', '*.reg.io']))).toEqual([
      'credprov.reg.io/credprov/probe',
      'docker.io/credprov/probe',
    ]);
  });

  test('normalizes given images to the repository the kubelet sends', () => {
    expect(chooseImages(provider(['docker.io']), ['nginx:1.2'])).toEqual(['docker.io/library/nginx']);
    expect(chooseImages(provider(['reg.io:5000']), ['reg.io:5000/a/b@sha256:' + 'a'.repeat(64)])).toEqual([
      'reg.io:5000/a/b',
    ]);
  });

  test('refuses an image the provider does not match, naming the patterns', () => {
    expect(() => chooseImages(provider(['*.reg.io']), ['reg.io/x'])).toThrow(
      /does not match it \(matchImages: \*\.reg\.io\)/,
    );
  });

  test('finds an image outside matchImages for the failure provocation', () => {
    expect(unservableImage(provider(['*.reg.io']))).toBe('credprov-unservable.invalid/credprov/probe');
    expect(unservableImage(provider(['*.invalid']))).toBe('unservable.credprov.example/credprov/probe');
  });
});
