import { describe, expect, test } from '@jest/globals';
import { judgeAllowlistForm, pluginBinaryOf } from './allowlist-form.ts';

describe('EP-ALLOWLIST-FORM', () => {
  test('the plugin binary a kubeconfig runs', () => {
    expect(pluginBinaryOf({ command: 'kubectl', args: ['oidc-login', 'get-token'] })).toBe('kubectl-oidc_login');
    expect(pluginBinaryOf({ command: '/usr/local/bin/kubelogin', args: ['get-token'] })).toBe('kubelogin');
    expect(pluginBinaryOf({ command: 'kubectl', args: ['--v=1'] })).toBe('kubectl');
  });

  test('a kubeconfig that runs the plugin itself passes, with the entry field note', () => {
    const o = judgeAllowlistForm({ command: '/usr/local/bin/kubelogin', args: ['get-token'] });
    expect(o.status).toBe('passed');
    expect(o.message).toMatch(/entry naming kubelogin admits it.*`command` from kubectl 1\.36/);
  });

  test("kubelogin's launcher form fails: the allowlist checks kubectl", () => {
    const o = judgeAllowlistForm({ command: 'kubectl', args: ['oidc-login', 'get-token'] });
    expect(o.status).toBe('failed');
    expect(o.message).toMatch(
      /checks kubectl, not kubectl-oidc_login.*not permitted by the credential plugin allowlist.*finding 18/,
    );
  });
});
