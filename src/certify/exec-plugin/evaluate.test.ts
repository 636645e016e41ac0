// The judgement alone, on hand-made observations: edge cases the fake plugin
// does not produce (a plugin that cannot be made to fail, a second run that
// fails, a plugin that declines a version it does not speak).
import { describe, expect, test } from '@jest/globals';
import type { ExecInvocation, ExecPlugin } from '../../plugin/client-exec.ts';
import { evaluate } from './evaluate.ts';
import type { Observations } from './runs.ts';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
let n = 0;

function credential(
  apiVersion = V1,
  status: Record<string, unknown> = { token: 'tok-0123456789', expirationTimestamp: '2099-01-01T00:00:00Z' },
): string {
  return JSON.stringify({ apiVersion, kind: 'ExecCredential', status });
}

function inv(o: Partial<ExecInvocation> = {}): ExecInvocation {
  const stdout = o.stdout ?? credential();
  const ok = (o.exitCode ?? 0) === 0 && !o.timedOut;
  return {
    id: `t-${++n}`,
    protocol: 'client-exec',
    startedAt: new Date().toISOString(),
    durationMs: 12,
    argv: ['p'],
    envKeys: [],
    request: {},
    stderr: '',
    timedOut: false,
    exitCode: 0,
    configuredApiVersion: V1,
    interactive: false,
    stdout,
    ...(ok && !('response' in o) ? { response: JSON.parse(stdout) } : {}),
    ...o,
  };
}

const plugin: ExecPlugin = {
  config: { command: 'p', args: [], env: [], apiVersion: V1, interactiveMode: 'Never', provideClusterInfo: false },
  baseDir: '/',
};

function observations(o: Partial<Observations> = {}): Observations {
  const main = o.main ?? inv();
  return {
    plugin,
    timeoutMs: 1000,
    main,
    repeat: inv(),
    concurrent: Array.from({ length: 8 }, () => inv()),
    nonInteractiveProbe: inv(),
    byVersion: [
      { apiVersion: V1, inv: main },
      { apiVersion: V1BETA1, inv: inv({ stdout: credential(V1BETA1) }) },
    ],
    provoked: [
      {
        name: 'unsupported-version',
        describe: 'asked for v0',
        inv: inv({ exitCode: 1, stdout: '', stderr: 'unsupported apiVersion v0', response: undefined }),
      },
    ],
    concurrency: 8,
    ...o,
  };
}

async function verdicts(o: Observations): Promise<Record<string, string>> {
  return Object.fromEntries((await evaluate(o)).map((c) => [c.id, c.status]));
}

describe('evaluate', () => {
  test('passes every check but the certificate one for a well-behaved token plugin', async () => {
    const v = await verdicts(observations());
    expect(Object.entries(v).filter(([, s]) => s !== 'passed')).toEqual([['EP-CERT-VALID', 'skipped']]);
  });

  test('fails EP-REPEAT when only the second run fails, and says what went wrong', async () => {
    const results = await evaluate(
      observations({
        repeat: inv({
          exitCode: 2,
          stdout: '',
          stderr: 'cache corrupt',
          response: undefined,
          decodeError: 'exec: executable p failed with exit code 2',
        }),
      }),
    );
    const repeat = results.find((c) => c.id === 'EP-REPEAT')!;
    expect(repeat.status).toBe('failed');
    expect(repeat.message).toBe(
      'the first run succeeded but the second did not: exec: executable p failed with exit code 2',
    );
  });

  test('skips EP-FAILURE-EXPLAINED when no provocation makes the plugin fail, naming what was tried', async () => {
    const results = await evaluate(
      observations({ provoked: [{ name: 'unsupported-version', describe: 'asked for v0', inv: inv() }] }),
    );
    expect(results.find((c) => c.id === 'EP-FAILURE-EXPLAINED')).toMatchObject({
      status: 'skipped',
      message: 'could not provoke a failure: the plugin produced a credential even when asked for v0',
    });
  });

  test('fails EP-FAILURE-EXPLAINED when a provoked run exits 0 without a credential', async () => {
    const results = await evaluate(
      observations({
        provoked: [
          { name: 'unsupported-version', describe: 'asked for v0', inv: inv({ stdout: '', response: undefined }) },
        ],
      }),
    );
    expect(results.find((c) => c.id === 'EP-FAILURE-EXPLAINED')?.status).toBe('failed');
  });

  test('counts declining an unsupported version with a reason on stderr as following KUBERNETES_EXEC_INFO', async () => {
    const declined = inv({ exitCode: 1, stdout: '', stderr: 'this plugin speaks v1 only', response: undefined });
    const v = await verdicts(
      observations({
        byVersion: [
          { apiVersion: V1, inv: inv() },
          { apiVersion: V1BETA1, inv: declined },
        ],
      }),
    );
    expect(v['EP-FOLLOWS-EXEC-INFO-VERSION']).toBe('passed');
  });

  test('skips what it cannot judge when the first run times out, and fails only EP-TIMEOUT', async () => {
    const hung = inv({
      timedOut: true,
      exitCode: undefined,
      signal: 'SIGKILL',
      stdout: '',
      response: undefined,
      durationMs: 1000,
    });
    const results = await evaluate(observations({ main: hung, concurrent: [], byVersion: [], provoked: [] }));
    const {
      repeat: _r,
      nonInteractiveProbe: _p,
      ...rest
    } = observations({ main: hung, concurrent: [], byVersion: [], provoked: [] });
    const noFollowUps = await evaluate(rest as Observations);
    for (const r of [results, noFollowUps]) {
      expect(r.filter((c) => c.status === 'failed' && c.level === 'MUST').map((c) => c.id)).toEqual(['EP-TIMEOUT']);
    }
  });
});

describe('EP-TOKEN-HEADER-VALUE', () => {
  const judged = async (token: string) => {
    const main = inv({ stdout: credential(V1, { token, expirationTimestamp: '2099-01-01T00:00:00Z' }) });
    return (await evaluate(observations({ main }))).find((c) => c.id === 'EP-TOKEN-HEADER-VALUE')!;
  };

  test('a token ending in a newline fails, naming the character and the clients, never the token', async () => {
    const r = await judged('secret-token-0123\n');
    expect(r.status).toBe('failed');
    expect(r.message).toContain('U+000A at offset 17: kubectl, client-go and python refuse to send it');
    expect(r.message).not.toContain('secret-token');
    expect(r.message).not.toContain('\n');
  });

  test('a character outside Latin-1 fails for client-node and Python; a DEL is refused by the server for Python', async () => {
    expect((await judged('secret-\u20ac')).message).toContain('U+20AC at offset 7: client-node and python refuse');
    expect((await judged('secret\u007f')).message).toMatch(/python sends it and the API server refuses the request/);
  });

  test('a space in the token fails: kube-apiserver reads another token', async () => {
    const r = await judged(' secret-token');
    expect([r.status, r.message]).toEqual(['failed', expect.stringContaining('U+0020 at offset 0')]);
  });

  test('a token over 1 MiB fails: kube-apiserver answers 431', async () => {
    const r = await judged(`secret.${'g'.repeat(1 << 20)}`);
    expect([r.status, r.message]).toEqual(['failed', expect.stringContaining('answers 431')]);
  });

  test('a 64 KiB token passes', async () => {
    const r = await judged(`secret.${'g'.repeat(64 * 1024)}`);
    expect([r.status, r.message]).toEqual(['passed', expect.stringContaining('65543-byte token')]);
  });
});

describe('answers some real clients refuse though credprov can read them', () => {
  const failed = async (stdout: string, id: string) => {
    const run = () => inv({ stdout, response: JSON.parse(stdout.replace(/^\uFEFF/, '')) });
    return (await evaluate(observations({ main: run(), repeat: run() }))).find((c) => c.id === id)!;
  };

  test('a byte-order mark before the JSON fails EP-STDOUT-ONLY-JSON', async () => {
    const r = await failed(`\uFEFF${credential()}`, 'EP-STDOUT-ONLY-JSON');
    expect([r.status, r.message]).toEqual(['failed', expect.stringContaining('UTF-8 byte-order mark')]);
  });

  test('token: "" beside a certificate fails EP-CREDENTIAL-SHAPE (the Python client sends an empty bearer)', async () => {
    const r = await failed(
      credential(V1, { token: '', clientCertificateData: 'CERT', clientKeyData: 'KEY' }),
      'EP-CREDENTIAL-SHAPE',
    );
    expect([r.status, r.message]).toEqual(['failed', expect.stringContaining('the Python client sends "Bearer "')]);
  });
});
