// A static credential beside an exec user, through the four clients: what each did against a
// recording endpoint (kubectl v1.35.4/v1.36.5/v1.37.1, client-go v0.37.1, client-node 2.0.1, Python 37.0.2).
import { describe, expect, test } from '@jest/globals';
import { staticBesideExec, type Sent, type StaticClient, type StaticCredential } from './exec-static-credentials.ts';

const row = (client: StaticClient, s: StaticCredential) => {
  const p = staticBesideExec({ client, static: s });
  return `${p.pluginRuns ? 'runs' : 'skipped'}/${p.sent}`;
};

describe('static credentials beside an exec user', () => {
  test.each<[StaticCredential, string, string, string, string]>([
    // credential   kubectl               client-go             client-node          python
    ['none', 'runs/plugin-token', 'runs/plugin-token', 'runs/plugin-token', 'runs/plugin-token'],
    ['token', 'skipped/static-token', 'skipped/static-token', 'runs/static-token', 'skipped/static-token'],
    ['tokenFile', 'skipped/file-token', 'skipped/file-token', 'runs/plugin-token', 'skipped/file-token'],
    ['basic', 'skipped/basic', 'skipped/basic', 'runs/plugin-token', 'runs/plugin-token'],
  ])('%s', (s, kubectl, clientGo, clientNode, python) => {
    expect([row('kubectl', s), row('client-go', s), row('client-node', s), row('python', s)]).toEqual([
      kubectl,
      clientGo,
      clientNode,
      python,
    ]);
  });

  test('kubectl --token: the plugin never runs and the flag’s token is sent; other clients have no flag', () => {
    expect(staticBesideExec({ client: 'kubectl', static: 'cliToken' })).toMatchObject({
      pluginRuns: false,
      sent: 'cli-token' satisfies Sent,
    });
    expect(() => staticBesideExec({ client: 'python', static: 'cliToken' })).toThrow(/kubectl's/);
  });

  test('Python sends a token file untrimmed: a trailing newline fails the request before it is sent', () => {
    expect(staticBesideExec({ client: 'python', static: 'tokenFile', tokenFileNewline: true })).toMatchObject({
      pluginRuns: false,
      sent: 'nothing',
      clientError: expect.stringMatching(/^ValueError: Invalid header value/),
    });
    expect(staticBesideExec({ client: 'client-go', static: 'tokenFile', tokenFileNewline: true }).sent).toBe(
      'file-token',
    );
  });
});
