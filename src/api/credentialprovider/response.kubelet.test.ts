import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { decodeResponse } from './response.ts';

const recorded = JSON.parse(
  readFileSync(new URL('./testdata/kubelet-v1.37.1-responses.json', import.meta.url), 'utf8'),
) as {
  cases: { name: string; stdout: string; kubeletError: string | null }[];
};

describe('decodeResponse rejects exactly the plugin outputs kubelet v1.37.1 rejected', () => {
  test.each(recorded.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const r = decodeResponse(c.stdout, 'credentialprovider.kubelet.k8s.io/v1');
    expect(r.ok).toBe(c.kubeletError === null);
    // Where the kubelet's message is specific, ours carries it.
    if (!r.ok && c.kubeletError && /apiVersion from|cacheKeyType/.test(c.kubeletError)) {
      expect(c.kubeletError).toContain(r.error.replace(/ \(must be one of.*$/, ''));
    }
  });
});
