import { describe, expect, test } from '@jest/globals';
import { validateExecConfig } from './validate.ts';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const errors = (raw: unknown, siblings = {}) =>
  validateExecConfig(raw, 'alice', 'exec', siblings)
    .problems.filter((p) => p.severity === 'error')
    .map((p) => p.message);

describe('validateExecConfig', () => {
  test('accepts a complete v1 stanza and keeps its fields', () => {
    const v = validateExecConfig(
      {
        apiVersion: V1,
        command: 'plugin',
        args: ['get-token'],
        env: [{ name: 'A', value: 'b' }],
        interactiveMode: 'Never',
        provideClusterInfo: true,
        installHint: 'brew install plugin',
      },
      'alice',
    );
    expect(v.problems).toEqual([]);
    expect(v.config).toEqual({
      apiVersion: V1,
      command: 'plugin',
      args: ['get-token'],
      env: [{ name: 'A', value: 'b' }],
      interactiveMode: 'Never',
      provideClusterInfo: true,
      installHint: 'brew install plugin',
    });
  });

  test("requires a command, in kubectl's words", () => {
    expect(errors({ apiVersion: V1, interactiveMode: 'Never' })).toEqual([
      'command must be specified for alice to use exec authentication plugin',
    ]);
  });

  test("requires an apiVersion, in kubectl's words", () => {
    expect(errors({ command: 'p', interactiveMode: 'Never' })).toEqual([
      'apiVersion must be specified for alice to use exec authentication plugin',
    ]);
  });

  test('requires interactiveMode for v1, as kubectl does', () => {
    expect(errors({ apiVersion: V1, command: 'p' })).toEqual([
      'interactiveMode must be specified for alice to use exec authentication plugin',
    ]);
  });

  test('defaults interactiveMode to IfAvailable for v1beta1, as clientcmd does', () => {
    expect(validateExecConfig({ apiVersion: V1BETA1, command: 'p' }, 'alice').config?.interactiveMode).toBe(
      'IfAvailable',
    );
  });

  test('rejects an interactiveMode that is not Never, IfAvailable or Always and suggests the closest', () => {
    const v = validateExecConfig({ apiVersion: V1, command: 'p', interactiveMode: 'never' }, 'alice');
    expect(v.problems[0]).toMatchObject({
      message: 'invalid interactiveMode for alice: "never"',
      hint: expect.stringContaining('did you mean Never?'),
    });
  });

  test('requires a name on every env entry and warns about a missing value', () => {
    const v = validateExecConfig(
      { apiVersion: V1, command: 'p', interactiveMode: 'Never', env: [{ value: 'x' }, { name: 'EMPTY' }] },
      'alice',
    );
    expect(v.problems.map((p) => [p.severity, p.message])).toEqual([
      ['error', 'env variable name must be specified for alice to use exec authentication plugin'],
      ['warning', 'env variable EMPTY has no value for alice; the plugin gets an empty string'],
    ]);
  });

  test("reports v1alpha1 as removed, with client-go's transport error", () => {
    const v = validateExecConfig({ apiVersion: 'client.authentication.k8s.io/v1alpha1', command: 'p' }, 'alice');
    expect(v.problems[0]).toMatchObject({
      message: 'exec plugin: invalid apiVersion "client.authentication.k8s.io/v1alpha1"',
      hint: expect.stringContaining('removed in Kubernetes 1.24'),
    });
  });

  test('rejects an unknown apiVersion', () => {
    expect(errors({ apiVersion: 'client.authentication.k8s.io/v2', command: 'p', interactiveMode: 'Never' })).toEqual([
      'exec plugin: invalid apiVersion "client.authentication.k8s.io/v2"',
    ]);
  });

  test('collects every problem, not just the first', () => {
    expect(errors({})).toEqual([
      'command must be specified for alice to use exec authentication plugin',
      'apiVersion must be specified for alice to use exec authentication plugin',
      'interactiveMode must be specified for alice to use exec authentication plugin',
    ]);
  });

  test('refuses authProvider next to exec, like kubectl', () => {
    expect(
      errors({ apiVersion: V1, command: 'p', interactiveMode: 'Never' }, { authProvider: { name: 'oidc' } }),
    ).toEqual(['authProvider cannot be provided in combination with an exec plugin for alice']);
  });

  test('warns about unknown fields that kubectl would silently drop, with a suggestion', () => {
    const v = validateExecConfig(
      { apiVersion: V1BETA1, command: 'p', interactivemode: 'Never' },
      'alice',
      'users[0].user.exec',
    );
    expect(v.config).toBeDefined();
    expect(v.problems).toEqual([
      {
        field: 'users[0].user.exec.interactivemode',
        severity: 'warning',
        message: 'unknown field "interactivemode" is ignored by kubectl',
        hint: 'did you mean interactiveMode?',
      },
    ]);
  });

  test('asks to quote a number given where a string belongs', () => {
    const v = validateExecConfig({ apiVersion: V1, command: 'p', interactiveMode: 'Never', args: [8080] }, 'alice');
    expect(v.problems[0]).toMatchObject({ field: 'exec.args[0]', hint: 'quote it: - "8080"' });
  });
});
