// credprov explain: "why is my plugin never called?" For one image, every
// provider and matchImages entry of a config, whether it matches and why not.
import { loadProviderConfig } from '../api/credentialprovider/config.ts';
import { ConfigError } from '../core/errors.ts';
import { providersForImage, type ProvidersForImage } from '../matching/providers.ts';
import { NEWEST_MINOR, parseKubeVersion } from '../versions/table.ts';
import type { Command } from './command.ts';
import { parseFlags, requireFlag } from './flags.ts';
import { parseFeatureGates } from './validate-config.ts';

interface Flags {
  config?: string;
  image?: string;
  'kube-version'?: string;
  'feature-gates'?: string;
  json?: boolean;
}

export const command: Command = {
  path: ['explain'],
  summary: 'say which providers and matchImages patterns match an image, and why not',
  usage: `Usage: credprov explain --config FILE|DIR --image IMAGE [--kube-version V] [--json]

Answers "why is my plugin never called?": normalises IMAGE as the kubelet
does (nginx becomes docker.io/library/nginx, the string a plugin receives as
request.image), then lists every provider in the order that kubelet would
exec them and, for each matchImages entry, whether it matches and why not
(port, host label count, path prefix, a host label's glob).

  --config F           --image-credential-provider-config file (or directory, 1.34+)
  --image I            image reference as written in the pod spec
  --kube-version V     kubelet version (default 1.${NEWEST_MINOR}): provider order, config rules
  --feature-gates K=V  kubelet feature gates used when validating the config
  --json               print the full verdict as JSON

Exit 0 when at least one provider would be exec'd, 1 when none would, 2 on a
bad config, image or flag.

Example:
  credprov explain --config /etc/kubernetes/credential-providers.yaml --image nginx:1.25
`,
  async run(argv, ctx) {
    const { values } = parseFlags<Flags>('explain', argv, {
      config: { type: 'string' },
      image: { type: 'string' },
      'kube-version': { type: 'string' },
      'feature-gates': { type: 'string' },
      json: { type: 'boolean' },
    });
    const file = requireFlag('explain', 'config', values.config);
    const image = requireFlag('explain', 'image', values.image);
    const version = parseKubeVersion(values['kube-version'] ?? `1.${NEWEST_MINOR}`);
    const featureGates = parseFeatureGates('explain', values['feature-gates']);
    let cfg;
    try {
      cfg = await loadProviderConfig(file, { kubeVersion: version.text, featureGates });
    } catch (e) {
      if (e instanceof ConfigError && values.json) {
        ctx.stdout(`${JSON.stringify({ file, kubeVersion: version.text, error: e.reason, problems: e.problems })}\n`);
        return e.exitCode;
      }
      if (e instanceof ConfigError && e.problems.length > 0) {
        throw new ConfigError(e.reason, { ...(e.file ? { file: e.file } : {}), problems: e.problems, hint: `a kubelet with this config does not start, so it calls no plugin; fix it first (credprov validate-config ${file})` });
      }
      throw e;
    }
    const verdict = providersForImage(cfg, image, version.text);
    if (values.json) ctx.stdout(`${JSON.stringify(verdict)}\n`);
    else ctx.stdout(render(verdict));
    return verdict.invoked.length > 0 ? 0 : 1;
  },
};

export function render(v: ProvidersForImage): string {
  const img = v.image;
  const extras = [`registry ${img.registry}`, `path ${img.path}`];
  if (img.tag) extras.push(`tag ${img.tag}`);
  if (img.digest) extras.push(`digest ${img.digest}`);
  if (img.implicitLatest) extras.push('tag latest (implicit)');
  const lines = [
    `image:      ${img.input}`,
    `normalised: ${img.repository}   (${extras.join(', ')})`,
    `            this is the request.image a plugin receives and the string matched against matchImages`,
    `kubelet:    ${v.kubeVersion}, providers run in ${v.order === 'config' ? 'config order' : 'name order'}`,
    '',
  ];
  const width = Math.max(0, ...v.providers.flatMap((p) => p.patterns.map((x) => x.pattern.length)));
  let rank = 0;
  for (const p of v.providers) {
    lines.push(`provider ${p.name}: ${p.invoked ? `called (${ordinal(++rank)})` : 'not called'}`);
    for (const { pattern, result } of p.patterns) {
      lines.push(`  ${result.match ? 'match' : 'no   '}  ${pattern.padEnd(width)}  ${result.reason}`);
      if (result.hint && !result.match) lines.push(`  ${' '.repeat(5)}  ${' '.repeat(width)}  hint: ${result.hint}`);
    }
  }
  lines.push('');
  lines.push(
    v.invoked.length > 0
      ? `result: the kubelet execs ${v.invoked.join(', then ')} for ${img.repository}${v.invoked.length > 1 ? '; it tries the credentials of all of them' : ''}`
      : `result: no provider matches ${img.repository}; the kubelet pulls it without plugin credentials`,
  );
  return `${lines.join('\n')}\n`;
}

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}
