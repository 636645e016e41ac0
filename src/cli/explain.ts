// credprov explain: "why is my plugin never called?" For one image, every
// provider and matchImages entry of a config, whether it matches and why not.
import { loadProviderConfig } from '../api/credentialprovider/config.ts';
import { ConfigError, UsageError } from '../core/errors.ts';
import { normalizeImage } from '../matching/image.ts';
import { DEFAULT_KUBE_VERSION, NEWEST_MINOR, parseKubeVersion } from '../versions/table.ts';
import { explainLive } from './explain-live.ts';
import { providersForImage, type ProvidersForImage } from '../matching/providers.ts';
import type { Command } from './command.ts';
import { parseFlags, requireFlag } from './flags.ts';
import { parseFeatureGates } from './validate-config.ts';
import { printError } from './output.ts';

interface Flags {
  config?: string;
  image?: string[];
  live?: boolean;
  'report-dir'?: string;
  'kube-version'?: string;
  'feature-gates'?: string;
}

export const command: Command = {
  path: ['explain'],
  summary: 'say which providers and matchImages patterns match an image, and why not',
  usage: `Usage: credprov explain --config FILE|DIR --image IMAGE [--kube-version V] [--json]
       credprov explain --live --config FILE|DIR --image IMAGE [--image ...] [--kube-version V] [--json] [--report-dir DIR]

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
  --live               ask the real kubelet too (local cluster, root): every provider is
                       replaced by a recording fake with its name and matchImages that
                       serves working credentials for a local registry standing in for
                       each image's host; a pod pulls each image; per provider the
                       prediction and what the kubelet did are shown side by side
  --report-dir D       (--live) also write report.json/junit.xml/report.md and artifacts

Exit 0 when at least one provider would be exec'd, 1 when none would, 2 on a
bad config, image or flag. With --live: 0 when the kubelet did what credprov
predicted for every image, 1 when it did not, 2 bad input, 3 harness error.

Example:
  credprov explain --config /etc/kubernetes/credential-providers.yaml --image nginx:1.25
`,
  async run(argv, ctx) {
    const { values } = parseFlags<Flags>('explain', argv, {
      config: { type: 'string' },
      image: { type: 'string', multiple: true },
      live: { type: 'boolean' },
      'report-dir': { type: 'string' },
      'kube-version': { type: 'string' },
      'feature-gates': { type: 'string' },
    });
    const file = requireFlag('explain', 'config', values.config);
    const images = values.image ?? [];
    if (images.length === 0) requireFlag('explain', 'image', undefined);
    if (images.length > 1 && !values.live)
      throw new UsageError('explain: --image is given more than once; without --live explain takes one image', {
        hint: 'run explain once per image, or add --live to ask the kubelet about several at once',
      });
    const version = parseKubeVersion(
      values['kube-version'] ?? (values.live ? DEFAULT_KUBE_VERSION : `1.${NEWEST_MINOR}`),
    );
    const featureGates = parseFeatureGates('explain', values['feature-gates']);
    let cfg;
    try {
      cfg = await loadProviderConfig(file, { kubeVersion: version.text, featureGates });
    } catch (e) {
      if (e instanceof ConfigError && ctx.json) {
        printError(e, ctx.verbose, (s) => process.stderr.write(s));
        ctx.stdout(
          `${JSON.stringify({ file, kubeVersion: version.text, error: e.reason, problems: e.problems, exitCode: e.exitCode })}\n`,
        );
        return e.exitCode;
      }
      if (e instanceof ConfigError && e.problems.length > 0) {
        throw new ConfigError(e.reason, {
          ...(e.file ? { file: e.file } : {}),
          problems: e.problems,
          hint: `a kubelet with this config does not start, so it calls no plugin; fix it first (credprov validate-config ${file})`,
        });
      }
      throw e;
    }
    for (const image of images) normalizeImage(image);
    if (values.live)
      return explainLive(
        {
          config: cfg,
          images,
          ...(values['kube-version'] ? { kubeVersion: values['kube-version'] } : {}),
          json: ctx.json,
          ...(values['report-dir'] !== undefined ? { reportDir: values['report-dir'] } : {}),
        },
        ctx,
      );
    const verdict = providersForImage(cfg, images[0]!, version.text);
    if (ctx.json) ctx.stdout(`${JSON.stringify(verdict)}\n`);
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
