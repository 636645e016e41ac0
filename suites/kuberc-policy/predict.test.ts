import { describe, expect, test } from '@jest/globals';
import { ALLOW_DENY, DEFAULT_PATH_FAILS_OPEN, ENTRY_FIELD, LAUNCHER_FORM, LOOKPATH, VALIDATION } from './checks.ts';
import { KUBECTL_VERSIONS, RUNS, type CaseDirs } from './plan.ts';
import { predictOtherClient, predictRun } from './predict.ts';

const dirs: CaseDirs = { bin: '/c/bin', shadowBin: '/c/shadow', systemPath: ['/usr/bin', '/bin'] };
const o = { kubercPath: '/c/kuberc.yaml', user: 'system:serviceaccount:krc:plugin-user' };
const at = (check: string, label: string) => RUNS[check]!.find((r) => r.label === label)!;
const outcome = (v: string, check: string, label: string) => predictRun(v, at(check, label), dirs, o).value;

describe('kuberc-policy predictions', () => {
  test('AllowAll runs the plugin, DenyAll refuses it in client-go words, an absolute entry admits it: on every minor', () => {
    for (const v of KUBECTL_VERSIONS) {
      expect(outcome(v, ALLOW_DENY.id, 'AllowAll')).toEqual({ result: 'authenticated', ran: 'plugin', user: o.user });
      expect(outcome(v, ALLOW_DENY.id, 'DenyAll')).toEqual({
        result: 'refused',
        ran: 'nothing',
        says: 'plugin "credprov-kuberc-plugin" not allowed: policy set to "DenyAll"',
      });
      expect(outcome(v, ALLOW_DENY.id, 'Allowlist naming its path').result).toBe('authenticated');
    }
  });

  test('the entry field follows the minor: `command` is unknown to 1.35, `name` is an alias from 1.36, differing values stop 1.36+', () => {
    expect(outcome('1.35.4', ENTRY_FIELD.id, '{command}')).toEqual({
      result: 'stops',
      ran: 'nothing',
      says: 'error occurred while applying preferences misconfigured credential plugin allowlist: empty allowlist entry #1',
    });
    expect(outcome('1.36.5', ENTRY_FIELD.id, '{command}').result).toBe('authenticated');
    for (const v of KUBECTL_VERSIONS) expect(outcome(v, ENTRY_FIELD.id, '{name}').result).toBe('authenticated');
    expect(outcome('1.35.4', ENTRY_FIELD.id, '{name: other, command: plugin}')).toMatchObject({ result: 'refused' });
    expect(outcome('1.37.1', ENTRY_FIELD.id, '{name: other, command: plugin}')).toEqual({
      result: 'stops',
      ran: 'nothing',
      says: 'error occurred while applying preferences kuberc error kuberc: no valid preferences found in /c/kuberc.yaml, use --v=5 to see details',
    });
  });

  test('the same kuberc at the default path: 1.35 refuses the plugin, 1.36+ drops the policy and runs it (finding 17)', () => {
    const label = '~/.kube/kuberc with {name: other, command: plugin}';
    expect(outcome('1.35.4', DEFAULT_PATH_FAILS_OPEN.id, label).result).toBe('refused');
    for (const v of ['1.36.5', '1.37.1'])
      expect(outcome(v, DEFAULT_PATH_FAILS_OPEN.id, label)).toEqual({
        result: 'authenticated',
        ran: 'plugin',
        user: o.user,
        says: 'kuberc: no preferences loaded from /c/kuberc.yaml: no valid preferences found in /c/kuberc.yaml, use --v=5 to see details',
      });
  });

  test('every malformed policy stops kubectl on every minor', () => {
    for (const v of KUBECTL_VERSIONS)
      for (const r of RUNS[VALIDATION.id]!) expect(predictRun(v, r, dirs, o).value.result).toBe('stops');
    expect(outcome('1.37.1', VALIDATION.id, 'empty allowlist').says).toMatch(/allowlist is empty; use "DenyAll"/);
    expect(outcome('1.37.1', VALIDATION.id, 'relative entry').says).toMatch(
      /non-normalized file path: "\.\/bin\/x" vs "bin\/x"/,
    );
  });

  test('a bare entry admits a shadow earlier in PATH; an absolute entry refuses the shadow and admits its own file', () => {
    expect(outcome('1.37.1', LOOKPATH.id, 'bare entry, shadow first in PATH').ran).toBe('shadow');
    expect(outcome('1.37.1', LOOKPATH.id, 'absolute entry, shadow first in PATH')).toMatchObject({
      result: 'refused',
      says: 'plugin path "/c/shadow/credprov-kuberc-plugin" is not permitted by the credential plugin allowlist',
    });
    expect(outcome('1.35.4', LOOKPATH.id, 'absolute entry, no shadow').ran).toBe('plugin');
  });

  test("kubelogin's form is checked as kubectl: the plugin's entry refuses it, kubectl's runs the kubectl plugin", () => {
    expect(outcome('1.36.5', LAUNCHER_FORM.id, 'entry naming the kubectl plugin')).toMatchObject({
      result: 'refused',
      says: 'plugin path "/c/bin/kubectl" is not permitted by the credential plugin allowlist',
    });
    expect(outcome('1.36.5', LAUNCHER_FORM.id, 'entry naming kubectl').ran).toBe('kubectl plugin');
  });

  test('client-go (no PluginPolicy set), client-node and Python run the plugin under a DenyAll kuberc', () => {
    for (const c of ['client-go', 'client-node', 'python'] as const)
      expect(predictOtherClient(c).value).toEqual({ pluginRan: true, answer: 200 });
    expect(predictOtherClient('client-go').because).toMatch(/only an ExecProvider.PluginPolicy the program sets/);
  });
});
