// kubectl's credential-plugin policy: each expectation is what the real kubectl v1.35.4, v1.36.5 and
// v1.37.1 did against a recording endpoint (docs/design/field-paths.md, "kuberc"), predicted here.
import { describe, expect, test } from '@jest/globals';
import { behaviourFor } from '../versions/table.ts';
import {
  allowlistNamingPlugin,
  clientEnforcesKuberc,
  enforcePolicy,
  loadKuberc,
  lookPath,
  validatePolicy,
  type PathWorld,
} from './kuberc-policy.ts';

const world = (path: string[]): PathWorld => ({
  path,
  executables: new Set([
    '/opt/bin/my-plugin',
    '/home/u/shadow/my-plugin',
    '/usr/bin/kubectl',
    '/opt/bin/kubectl-oidc_login',
  ]),
});
const plain = world(['/opt/bin', '/usr/bin']);
const shadowed = world(['/home/u/shadow', '/opt/bin', '/usr/bin']);
const field = (minor: number) => (minor === 35 ? 'name' : 'command');

describe('loading a kuberc', () => {
  test.each([35, 36, 37])('kubectl 1.%i: the entry field it knows is applied', (minor) => {
    expect(
      loadKuberc(
        minor,
        { credentialPluginPolicy: 'Allowlist', credentialPluginAllowlist: [{ [field(minor)]: 'my-plugin' }] },
        true,
      ),
    ).toMatchObject({ outcome: 'policy', policy: { type: 'Allowlist', allowlist: ['my-plugin'] }, messages: [] });
  });

  test('kubectl 1.35 does not know `command`: a warning, then the empty entry is refused', () => {
    const l = loadKuberc(
      35,
      { credentialPluginPolicy: 'Allowlist', credentialPluginAllowlist: [{ command: 'my-plugin' }] },
      true,
    );
    expect(l.outcome).toBe('fatal');
    expect(l.messages).toEqual([
      'kuberc: ignoring strict decoding error in <kuberc>: strict decoding error: unknown field "credentialPluginAllowlist[0].command"',
      'error occurred while applying preferences misconfigured credential plugin allowlist: empty allowlist entry #1',
    ]);
  });

  test('a portable entry {name: x, command: x} works on 1.35 (with a warning) and on 1.36+', () => {
    const doc = {
      credentialPluginPolicy: 'Allowlist',
      credentialPluginAllowlist: [{ name: 'my-plugin', command: 'my-plugin' }],
    };
    expect(loadKuberc(35, doc, true)).toMatchObject({
      outcome: 'policy',
      messages: [expect.stringMatching(/unknown field/)],
    });
    expect(loadKuberc(36, doc, true)).toMatchObject({ outcome: 'policy', messages: [] });
  });

  test('1.36+: different name and command fail the whole document: fatal when explicit, no policy at all at the default path', () => {
    const doc = {
      credentialPluginPolicy: 'Allowlist',
      credentialPluginAllowlist: [{ name: 'other', command: 'my-plugin' }],
    };
    expect(loadKuberc(37, doc, true)).toMatchObject({
      outcome: 'fatal',
      messages: [
        expect.stringMatching(
          /^error occurred while applying preferences kuberc error kuberc: no valid preferences found/,
        ),
      ],
    });
    expect(loadKuberc(37, doc, false)).toMatchObject({
      outcome: 'no-policy',
      messages: [expect.stringMatching(/^kuberc: no preferences loaded from <kuberc>: no valid preferences found/)],
    });
    // 1.35 ignores `command` and uses `name`.
    expect(loadKuberc(35, doc, false)).toMatchObject({ outcome: 'policy', policy: { allowlist: ['other'] } });
  });

  test('kubectl 1.34 has no policy: the fields only warn', () => {
    expect(loadKuberc(34, { credentialPluginPolicy: 'DenyAll' }, true)).toMatchObject({ outcome: 'no-policy' });
  });

  test('validation errors are fatal wherever the file is, with client-go’s words', () => {
    expect(validatePolicy('Allowlist', [])).toBe(
      'credential plugin policy set to "Allowlist", but allowlist is empty; use "DenyAll" policy instead',
    );
    expect(validatePolicy('Allowlist', undefined)).toBe(
      'credential plugin policy set to "Allowlist", but allowlist is unspecified',
    );
    expect(validatePolicy('Allowlist', ['./bin/my-plugin'])).toBe(
      'non-normalized file path: "./bin/my-plugin" vs "bin/my-plugin"',
    );
    expect(validatePolicy('Denyall', undefined)).toBe('unknown plugin policy: "Denyall"');
    expect(validatePolicy('DenyAll', ['x'])).toMatch(/but allowlist is non-nil/);
    expect(loadKuberc(36, { credentialPluginPolicy: 'Denyall' }, false).outcome).toBe('fatal');
    // A misspelt allowlist key is only a warning; the policy it left is enforced.
    expect(
      loadKuberc(37, { credentialPluginPolicy: 'DenyAll', other: ['credentialPluginAllowList'] }, false),
    ).toMatchObject({
      outcome: 'policy',
      policy: { type: 'DenyAll' },
      messages: [
        'kuberc: ignoring strict decoding error in <kuberc>: strict decoding error: unknown field "credentialPluginAllowList"',
      ],
    });
  });
});

describe('enforcing the policy', () => {
  test('LookPath: first PATH hit; a name with a slash as is', () => {
    expect(lookPath('my-plugin', shadowed)).toEqual({ path: '/home/u/shadow/my-plugin' });
    expect(lookPath('/opt/bin/my-plugin', shadowed)).toEqual({ path: '/opt/bin/my-plugin' });
    expect(lookPath('nope', plain)).toEqual({ error: 'exec: "nope": executable file not found in $PATH' });
  });

  test('DenyAll names the configured command', () => {
    expect(enforcePolicy({ type: 'DenyAll' }, 'my-plugin', plain)).toEqual({
      error: 'plugin "my-plugin" not allowed: policy set to "DenyAll"',
      because: 'DenyAll refuses every plugin',
    });
  });

  test('a bare entry allows whatever PATH finds first, a shadow included', () => {
    expect(enforcePolicy({ type: 'Allowlist', allowlist: ['my-plugin'] }, 'my-plugin', shadowed)).toMatchObject({
      runs: '/home/u/shadow/my-plugin',
    });
  });

  test('an absolute entry refuses the shadow and allows the file it names', () => {
    const policy = { type: 'Allowlist' as const, allowlist: ['/opt/bin/my-plugin'] };
    expect(enforcePolicy(policy, 'my-plugin', shadowed)).toMatchObject({
      error: 'plugin path "/home/u/shadow/my-plugin" is not permitted by the credential plugin allowlist',
    });
    expect(enforcePolicy(policy, 'my-plugin', plain)).toMatchObject({ runs: '/opt/bin/my-plugin' });
  });

  test('kubelogin’s form runs kubectl: an entry for the plugin refuses it, an entry for kubectl admits it', () => {
    expect(enforcePolicy({ type: 'Allowlist', allowlist: ['kubectl-oidc_login'] }, 'kubectl', plain)).toMatchObject({
      error: 'plugin path "/usr/bin/kubectl" is not permitted by the credential plugin allowlist',
    });
    expect(enforcePolicy({ type: 'Allowlist', allowlist: ['kubectl'] }, 'kubectl', plain)).toMatchObject({
      runs: '/usr/bin/kubectl',
    });
    expect(
      allowlistNamingPlugin({ command: 'kubectl', args: ['oidc-login', 'get-token'] }, 'kubectl-oidc_login'),
    ).toMatchObject({
      survives: false,
      launcher: 'kubectl',
      entryNeeded: 'kubectl',
    });
    expect(
      allowlistNamingPlugin({ command: 'kubectl-oidc_login', args: ['get-token'] }, 'kubectl-oidc_login').survives,
    ).toBe(true);
  });

  test('only kubectl 1.35+ enforces it; client-go programs, client-node and Python never do', () => {
    expect(clientEnforcesKuberc('kubectl', behaviourFor('1.37')).enforces).toBe(true);
    expect(clientEnforcesKuberc('kubectl', behaviourFor('1.34')).enforces).toBe(false);
    for (const c of ['client-go', 'client-node', 'python'] as const)
      expect(clientEnforcesKuberc(c).enforces).toBe(false);
  });
});
