// The judgement alone, on hand-made observations: what each check says it
// catches is what its judge catches (KP-FAILURE-EXPLAINED on a valid answer for
// an image outside matchImages; KP-STRICT-DECODE and KP-CACHE-DURATION on a
// numeric cacheDuration).
import { describe, expect, test } from '@jest/globals';
import type { CredentialProvider } from '../../api/credentialprovider/types.ts';
import type { Invocation } from '../../plugin/invocation.ts';
import { newestBehaviour } from '../../versions/table.ts';
import { judgeChecks } from '../kit.ts';
import { analyseResponse } from './analyse.ts';
import * as C from './checks.ts';
import { KUBELET_PLUGIN_JUDGES, type Observations, type Probe } from './evaluate.ts';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const provider: CredentialProvider = {
  name: 'p',
  apiVersion: V1,
  matchImages: ['reg.io'],
  defaultCacheDuration: '1m',
};
let n = 0;

function probe(image: string, response: unknown, o: Partial<Invocation> = {}): Probe {
  const stdout = typeof response === 'string' ? response : JSON.stringify(response);
  const invocation: Invocation = {
    id: `kp-${++n}`,
    protocol: 'kubelet-credential-provider',
    startedAt: new Date().toISOString(),
    durationMs: 5,
    argv: ['/bin/p'],
    envKeys: [],
    request: { image },
    stdout,
    stderr: '',
    timedOut: false,
    exitCode: 0,
    ...o,
  };
  return { image, invocation, ...(invocation.exitCode === 0 ? { analysis: analyseResponse(stdout, V1) } : {}) };
}

const answer = (auth: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: V1,
  kind: 'CredentialProviderResponse',
  cacheKeyType: 'Registry',
  auth,
  ...extra,
});

function observations(o: Partial<Observations> = {}): Observations {
  return {
    provider,
    timeoutMs: 60_000,
    behaviour: newestBehaviour(),
    probes: [probe('reg.io/app', answer({ 'reg.io': { username: 'u', password: 'p' } }))],
    unservable: probe('other.io/app', '', { exitCode: 1, stderr: 'no credentials for other.io' }),
    malformed: probe('(malformed request)', '', { exitCode: 1, stderr: 'request is not JSON' }),
    ...o,
  };
}

async function verdict(obs: Observations, id: string) {
  const results = await judgeChecks(KUBELET_PLUGIN_JUDGES, obs);
  return results.find((r) => r.id === id)!;
}

describe('KP-FAILURE-EXPLAINED catches what its title says, and says what it saw', () => {
  test('a valid answer with credentials for an image outside matchImages passes, and the message says so', async () => {
    const r = await verdict(
      observations({ unservable: probe('other.io/app', answer({ 'other.io': { username: 'u', password: 'p' } })) }),
      C.KP_FAILURE_EXPLAINED.id,
    );
    expect(r.status).toBe('passed');
    expect(r.message).toContain(
      'for image other.io/app, which none of its matchImages covers, it answered a valid response with 1 auth entry ("other.io"): the kubelet never asks for such an image',
    );
    expect(C.KP_FAILURE_EXPLAINED.title).toContain('or answers with a valid response');
  });

  test('exit 0 with no valid response fails', async () => {
    const r = await verdict(observations({ unservable: probe('other.io/app', '') }), C.KP_FAILURE_EXPLAINED.id);
    expect(r.status).toBe('failed');
    expect(r.message).toContain('it exited 0 without a valid response (empty stdout)');
  });
});

describe('KP-STRICT-DECODE claims only the types it judges', () => {
  test('a numeric cacheDuration is KP-CACHE-DURATION’s, and the strict title does not claim every field', async () => {
    const obs = observations({
      probes: [probe('reg.io/app', answer({ 'reg.io': { username: 'u', password: 'p' } }, { cacheDuration: 300 }))],
    });
    expect((await verdict(obs, C.KP_STRICT.id)).status).toBe('passed');
    expect((await verdict(obs, C.KP_CACHE_DURATION.id)).status).toBe('failed');
    expect(C.KP_STRICT.title).not.toMatch(/every field/);
  });

  test('a password that is not a string is KP-STRICT-DECODE’s', async () => {
    const obs = observations({ probes: [probe('reg.io/app', answer({ 'reg.io': { username: 'u', password: 7 } }))] });
    expect((await verdict(obs, C.KP_STRICT.id)).status).toBe('failed');
  });
});

describe("credprov's own output limit is never the plugin's failure", () => {
  const big = answer(
    Object.fromEntries(Array.from({ length: 40_001 }, (_, i) => [`m${i}.reg.io`, { username: 'u', password: 'p' }])),
  );

  test('a valid 5 MiB answer passes KP-STDOUT-ONLY-JSON (the kubelet reads all of stdout) and earns a SHOULD saying why', async () => {
    const obs = observations({
      probes: [probe('reg.io/app', { ...big, auth: { ...big.auth, 'reg.io': { username: 'u', password: 'p' } } })],
    });
    expect((await verdict(obs, C.KP_STDOUT.id)).status).toBe('passed');
    const size = await verdict(obs, C.KP_RESPONSE_SIZE.id);
    expect([size.status, size.level]).toEqual(['failed', 'SHOULD']);
    expect(size.message).toMatch(/the answer is \d+(\.\d)? MiB with 40002 auth entries: the kubelet reads it whole/);
  });

  test('an answer still going at the 64 MiB limit is a harness failure, not the plugin’s', async () => {
    const kept = JSON.stringify(big).slice(0, 1000);
    const cut = `stdout was cut at ${kept.length} bytes of 70000000`;
    const p: Probe = {
      image: 'reg.io/app',
      invocation: { ...probe('reg.io/app', kept).invocation, outputBytes: { stdout: 70_000_000, stderr: 0 } },
      analysis: analyseResponse(kept, V1, cut),
    };
    const r = await verdict(observations({ probes: [p] }), C.KP_STDOUT.id);
    expect([r.status, r.cause]).toEqual(['failed', 'harness']);
    expect(r.message).toContain('credprov keeps at most 64 MiB of stdout, so it cannot judge this answer');
  });
});
