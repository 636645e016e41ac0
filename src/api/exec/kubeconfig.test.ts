import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { loadKubeconfigExecUser, parseKubeconfigExecUser } from './kubeconfig.ts';
import { rejectsWithConfigError } from '../../testing/errors.ts';

const dir = resolve('fixtures/kubeconfigs');

describe('loadKubeconfigExecUser', () => {
  test("takes the current context's user and its cluster, inlining the CA file and the exec extension", async () => {
    const l = await loadKubeconfigExecUser(join(dir, 'valid-v1.yaml'));
    expect(l.user).toBe('alice');
    expect(l.baseDir).toBe(dir);
    expect(l.config).toMatchObject({
      command: '../fake-exec-plugin/fake-exec-plugin',
      interactiveMode: 'Never',
      provideClusterInfo: true,
    });
    expect(l.cluster).toEqual({
      server: 'https://127.0.0.1:6443',
      'tls-server-name': 'kubernetes.dev',
      'certificate-authority-data': readFileSync(join(dir, 'ca.pem')).toString('base64'),
      config: { audience: 'dev-cluster' },
    });
  });

  test('names the file and line when the kubeconfig is not YAML, in one line', async () => {
    const e = await rejectsWithConfigError(loadKubeconfigExecUser(join(dir, 'invalid-not-yaml.yaml')));
    expect(e.reason).toMatch(/invalid-not-yaml\.yaml:\d+: not valid YAML: /);
    expect(e.reason).not.toContain('\n');
    expect(e.exitCode).toBe(2);
  });

  test("prints kubectl's message for a v1 stanza without interactiveMode, with a fix", async () => {
    const e = await rejectsWithConfigError(
      loadKubeconfigExecUser(join(dir, 'invalid-v1-missing-interactive-mode.yaml')),
    );
    expect(e.reason).toBe(
      `${join(dir, 'invalid-v1-missing-interactive-mode.yaml')}: interactiveMode must be specified for alice to use exec authentication plugin`,
    );
    expect(e.hint).toContain('interactiveMode: Never');
  });

  test('lists the users present when --user names none of them', async () => {
    const e = await rejectsWithConfigError(loadKubeconfigExecUser(join(dir, 'valid-v1.yaml'), 'carol'));
    expect(e.reason).toContain('user "carol" not found; users present: alice, bob');
  });

  test('says so when the user has no exec stanza', async () => {
    const e = await rejectsWithConfigError(loadKubeconfigExecUser(join(dir, 'valid-v1.yaml'), 'bob'));
    expect(e.reason).toContain('user "bob" has no exec stanza (users[1].user.exec)');
  });

  test('says the file does not exist', async () => {
    expect((await rejectsWithConfigError(loadKubeconfigExecUser('/nonexistent/kubeconfig'))).reason).toBe(
      'kubeconfig /nonexistent/kubeconfig: no such file or directory',
    );
  });

  test('prints several problems under "Error in configuration", as kubectl does', async () => {
    const e = await rejectsWithConfigError(
      parseKubeconfigExecUser('users: [{name: u, user: {exec: {env: [{value: x}]}}}]\n', 'k.yaml', 'u'),
    );
    expect(e.reason).toBe('k.yaml: Error in configuration: 4 problems');
    expect(e.detail).toContain(
      '* command must be specified for u to use exec authentication plugin (users[0].user.exec.command)',
    );
    expect(e.detail).toContain('* env variable name must be specified for u to use exec authentication plugin');
  });

  test('refuses provideClusterInfo when no context gives the user a cluster', async () => {
    const text =
      'users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: p, interactiveMode: Never, provideClusterInfo: true}}}]\n';
    expect((await rejectsWithConfigError(parseKubeconfigExecUser(text, 'k.yaml', 'u'))).reason).toContain(
      'provideClusterInfo is set for user "u" but no context uses that user',
    );
  });

  test("refuses two users of the same name with client-go's error, naming the file, even when --user names the other one", async () => {
    const file = join(dir, 'invalid-duplicate-user.yaml');
    for (const user of [undefined, 'alice']) {
      const e = await rejectsWithConfigError(loadKubeconfigExecUser(file, user));
      expect(e.reason).toBe(
        `error loading config file "${file}": error converting *[]NamedAuthInfo into *map[string]*api.AuthInfo: duplicate name "alice" in list`,
      );
      expect(e.exitCode).toBe(2);
      expect(e.detail).toBe('users[0] and users[1] are both named "alice"');
    }
  });

  test.each([
    [
      'clusters',
      'NamedCluster',
      'api.Cluster',
      'clusters: [{name: c, cluster: {server: "https://a"}}, {name: c, cluster: {server: "https://b"}}]',
    ],
    [
      'contexts',
      'NamedContext',
      'api.Context',
      'contexts: [{name: x, context: {cluster: c, user: u}}, {name: y, context: {}}, {name: x, context: {}}]',
    ],
  ])('refuses duplicate %s as client-go does', async (list, named, type, yaml) => {
    const text = `${yaml}\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: p}}}]\n`;
    const e = await rejectsWithConfigError(parseKubeconfigExecUser(text, 'k.yaml', 'u'));
    expect(e.reason).toBe(
      `error loading config file "k.yaml": error converting *[]${named} into *map[string]*${type}: duplicate name "${list === 'clusters' ? 'c' : 'x'}" in list`,
    );
  });

  test("reports duplicates in client-go's order: clusters, then users, then contexts", async () => {
    const text =
      'contexts: [{name: x}, {name: x}]\nusers: [{name: u, user: {}}, {name: u, user: {}}]\nclusters: [{name: c}, {name: c}]\n';
    expect((await rejectsWithConfigError(parseKubeconfigExecUser(text, 'k.yaml', 'u'))).reason).toContain(
      '*[]NamedCluster',
    );
    expect(
      (
        await rejectsWithConfigError(
          parseKubeconfigExecUser(text.replace('clusters: [{name: c}, {name: c}]', ''), 'k.yaml', 'u'),
        )
      ).reason,
    ).toContain('*[]NamedAuthInfo');
  });

  test('takes the only user when there is no current context', async () => {
    const l = await parseKubeconfigExecUser(
      'users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: p}}}]\n',
      'k.yaml',
    );
    expect(l.user).toBe('u');
    expect(l.config.interactiveMode).toBe('IfAvailable');
    expect(l.cluster).toBeUndefined();
  });
});
