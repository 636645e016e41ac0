import { describe, expect, test } from '@jest/globals';
import { classifyProxyError } from './go.ts';

// Error texts as `go mod download -json` printed them against proxy.golang.org (2026-11).
describe('classifyProxyError', () => {
  test('a 403 on the zip is a refusal (v1.37.2: the version exists but its source is not served)', () => {
    expect(
      classifyProxyError(
        'k8s.io/kubernetes@v1.37.2: reading https://proxy.golang.org/k8s.io/kubernetes/@v/v1.37.2.zip: 403 Forbidden\n\tserver response: This module version is not available.',
      ),
    ).toBe('refused');
  });

  test('a 403 on the .info is an unknown version (the proxy answers 403 for tags that do not exist)', () => {
    expect(
      classifyProxyError(
        'k8s.io/kubernetes@v1.37.9: reading https://proxy.golang.org/k8s.io/kubernetes/@v/v1.37.9.info: 403 Forbidden\n\tserver response: This module version is not available.',
      ),
    ).toBe('unknown-version');
  });

  test('a checksum database 404 is a missing checksum (v1.36.5)', () => {
    expect(
      classifyProxyError(
        'k8s.io/kubernetes@v1.36.5: verifying go.mod: k8s.io/kubernetes@v1.36.5/go.mod: reading https://proxy.golang.org/sumdb/sum.golang.org/lookup/k8s.io/kubernetes@v1.36.5: 404 Not Found',
      ),
    ).toBe('no-checksum');
  });

  test('DNS and connection failures are network problems', () => {
    expect(
      classifyProxyError(
        'Get "https://proxy.golang.org/k8s.io/kubernetes/@v/list": dial tcp: lookup proxy.golang.org: no such host',
      ),
    ).toBe('network');
  });
});
