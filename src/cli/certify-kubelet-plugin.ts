// credprov certify kubelet-plugin: flags → certifyKubeletPlugin → reports and exit code.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadProviderConfig } from '../api/credentialprovider/config.ts';
import type { CredentialProvider, CredentialProviderConfig } from '../api/credentialprovider/types.ts';
import { ConfigError, UsageError } from '../core/errors.ts';
import { parseGoDuration, parseGoDuration as parseDuration } from '../core/duration.ts';
import { readInputText } from '../core/input-file.ts';
import { stderrProgress } from '../core/progress.ts';
import { Redactor } from '../core/redact.ts';
import { certifyKubeletPlugin, DEFAULT_CONCURRENCY } from '../certify/kubelet-plugin/certify.ts';
import { chooseImages } from '../certify/kubelet-plugin/images.ts';
import { verifyPullCheck } from '../certify/kubelet-plugin/verify-pull.ts';
import { certifyLive } from '../certify/kubelet-plugin/live.ts';
import { applyEnv, mergePartial } from '../api/spec/index.ts';
import type { PluginAnswer } from '../model/credential-cache.ts';
import { InvocationLog } from '../plugin/invocation.ts';
import { prepareReportDir } from '../report/report-dir.ts';
import { killRunningPlugins, KUBELET_PLUGIN_TIMEOUT_MS } from '../plugin/kubelet-exec.ts';
import { behaviourFor, NEWEST_MINOR, parseKubeVersion } from '../versions/table.ts';
import type { Command } from './command.ts';
import { parseFlags, requireFlag } from './flags.ts';
import { withInterrupt } from './interrupt.ts';
import { finishCertify } from './certify-finish.ts';
import { sweepOrphanedRuns, warnOfOrphans } from '../plugin/strays.ts';

const NAME = 'certify kubelet-plugin';

const usage = `Usage: credprov certify kubelet-plugin --plugin PATH --config PATH [flags]

Runs a kubelet image credential provider plugin exactly as the kubelet does
(<bin-dir>/<provider name> + args, the config's env, the request on stdin,
strict decoding of stdout) and checks it against the KEP-2133/KEP-4412
contract: apiVersion and kind, strict decoding, cacheKeyType, cacheDuration,
auth keys that match the image, nothing but JSON on stdout, failures explained
on stderr, answers within the timeout, ${DEFAULT_CONCURRENCY} concurrent invocations, and (with
tokenAttributes) no service account token echoed back as a password.

Flags:
  --plugin PATH          the plugin executable
  --config PATH          a CredentialProviderConfig (YAML or JSON) with the plugin's provider entry
  --provider NAME        the provider entry to use (default: the only one in the config)
  --image IMAGE          an image to request credentials for (repeatable); it must match the
                         provider's matchImages. Default: one image per matchImages pattern
                         (at most 4), each host glob made concrete and credprov/probe appended:
                         *.reg.io → credprov.reg.io/credprov/probe, reg.io:5000/team →
                         reg.io:5000/team/credprov/probe
  --timeout DURATION     how long a plugin run may take (default 1m, the kubelet's fixed timeout)
  --report-dir DIR       where report.json, junit.xml, report.md and invocations.jsonl go
                         (default reports/<timestamp>/)
  --kube-version V       the kubelet version whose rules apply (default 1.${NEWEST_MINOR})
  --service-account-annotation KEY=VALUE
                         with tokenAttributes: the value sent for an annotation key the
                         provider lists (repeatable), e.g. a role your plugin exchanges
                         the token for; other listed keys get probe values
  --verify-pull          also check that the returned credentials open each --image in its
                         registry (manifest + config blob reads, as a pull starts); MUST
  --verify-pull-ca FILE  CA certificate (PEM) to trust for that registry (credprov registry's caFile)
  --verify-pull-plain-http  reach that registry over http instead of https
  --registry-for IMAGE_HOST=REGISTRY[:PORT]
                         images of IMAGE_HOST are served by that registry (repeatable): --verify-pull
                         connects there, and --live routes the host there in containerd (hosts.toml),
                         e.g. 123456789012.dkr.ecr.us-east-1.amazonaws.com=registry.test:5000
  --live                 after the hermetic checks, install the plugin and its provider entry into the
                         local cluster's kubelet (CREDPROV_ENV_NAME, default 'default'; brought up and
                         torn down if not running) and pull each --image, the first again, and an image
                         outside matchImages: KP-LIVE-CONFIG-LOADED (the kubelet's config hash, 1.34+),
                         KP-LIVE-INVOKED, KP-LIVE-PULL, KP-LIVE-CACHE, KP-LIVE-NO-PLUGIN-ERRORS (MUST).
                         --verify-pull-ca is trusted by containerd too

With tokenAttributes, each request carries a service account token shaped like
the API server's (RS256, signed by a key made for this run, audience from the
config) and the configured annotation keys with probe values.

Exit codes: 0 every MUST check passed, 1 a MUST check failed, 2 usage or input
error, 3 harness error.

Example:
  credprov certify kubelet-plugin --plugin ./ecr-credential-provider \\
    --config ecr.yaml --image 123456789012.dkr.ecr.us-east-1.amazonaws.com/app
`;

interface Flags {
  plugin?: string;
  config?: string;
  provider?: string;
  image?: string[];
  timeout?: string;
  'report-dir'?: string;
  'kube-version'?: string;
  'verify-pull'?: boolean;
  'verify-pull-ca'?: string;
  'verify-pull-plain-http'?: boolean;
  'service-account-annotation'?: string[];
  'registry-for'?: string[];
  live?: boolean;
}

export const command: Command = {
  path: ['certify', 'kubelet-plugin'],
  summary: 'check a kubelet image credential provider plugin against the KEP-2133/KEP-4412 contract',
  usage,
  async run(argv, ctx) {
    const { values } = parseFlags<Flags>(NAME, argv, {
      plugin: { type: 'string' },
      config: { type: 'string' },
      provider: { type: 'string' },
      image: { type: 'string', multiple: true },
      timeout: { type: 'string' },
      'report-dir': { type: 'string' },
      'kube-version': { type: 'string' },
      'verify-pull': { type: 'boolean' },
      'verify-pull-ca': { type: 'string' },
      'verify-pull-plain-http': { type: 'boolean' },
      'service-account-annotation': { type: 'string', multiple: true },
      'registry-for': { type: 'string', multiple: true },
      live: { type: 'boolean' },
    });
    const startedAt = new Date();
    const plugin = requireFlag(NAME, 'plugin', values.plugin);
    const configFile = requireFlag(NAME, 'config', values.config);
    const kubeVersion = parseKubeVersion(values['kube-version'] ?? `1.${NEWEST_MINOR}`);
    behaviourFor(kubeVersion);
    const timeoutMs = parseTimeout(values.timeout);
    await requireExecutable(plugin);
    const config = await loadProviderConfig(configFile, { kubeVersion: kubeVersion.text });
    const provider = pickProvider(config, configFile, values.provider);
    const images = chooseImages(provider, values.image ?? []);
    const annotations = parseAnnotations(provider, values['service-account-annotation'] ?? []);
    const registryFor = parseRegistryFor(values['registry-for'] ?? []);
    if (values.live && !values.image?.length)
      throw new UsageError(
        `${NAME}: --live needs --image naming images that exist in a registry the local cluster can reach`,
        { hint: 'use --registry-for and --verify-pull-ca for a local registry standing in for the image host' },
      );
    const extraChecks = values['verify-pull'] ? [await verifyPullFlags(values, registryFor)] : [];

    const redactor = new Redactor();
    for (const e of provider.env ?? []) redactor.add(e.value);
    // Before any plugin runs: a report dir that cannot be written should cost a second, not a certification.
    const reportDir = await prepareReportDir(values['report-dir'], ctx.cwd, startedAt);
    const log = new InvocationLog(join(reportDir, 'invocations.jsonl'), redactor);
    warnOfOrphans(ctx.log, sweepOrphanedRuns());
    const result = await withInterrupt((signal) => {
      signal.addEventListener('abort', killRunningPlugins, { once: true });
      return certifyKubeletPlugin({
        plugin,
        provider,
        images,
        redactor,
        timeoutMs,
        kubeVersion,
        log,
        signal,
        serviceAccount: { annotations },
        extraChecks,
        logger: ctx.log.child('plugin'),
        progress: stderrProgress(),
      });
    });
    const sa = result.observations.serviceAccount;
    let live: Awaited<ReturnType<typeof certifyLive>> | undefined;
    if (values.live) {
      // What the plugin told the hermetic probes it wants cached: the live prediction starts from it.
      const answers: Record<string, PluginAnswer> = {};
      for (const p of result.observations.probes) {
        const o = p.analysis?.accepted ? p.analysis.object : undefined;
        if (!o || typeof o.cacheKeyType !== 'string') continue;
        const ms = typeof o.cacheDuration === 'string' ? parseDuration(o.cacheDuration) : undefined;
        answers[p.image] = { cacheKeyType: o.cacheKeyType, ...(ms !== undefined ? { cacheDurationMs: ms } : {}) };
      }
      live = await certifyLive({
        plugin,
        provider,
        images: values.image ?? [],
        answers,
        registryFor,
        ...(values['verify-pull-ca'] ? { caFile: resolve(ctx.cwd, values['verify-pull-ca']) } : {}),
        ...(values['verify-pull-plain-http'] ? { plainHttp: true } : {}),
        baseSpec: mergePartial(
          applyEnv({}, ctx.env, ctx.log),
          values['kube-version'] ? { kubeVersion: values['kube-version'] } : {},
        ),
        artifactsDir: join(reportDir, 'live'),
        redactor,
        log: ctx.log,
        progress: stderrProgress(),
        processEnv: ctx.env,
      });
    }
    return finishCertify(ctx, {
      command: NAME,
      subject: {
        plugin,
        config: configFile,
        provider: provider.name,
        protocolApiVersion: provider.apiVersion,
        matchImages: provider.matchImages,
        images,
        kubeVersion: kubeVersion.text,
        timeout: values.timeout ?? '1m',
        ...(provider.tokenAttributes ? { tokenAttributes: provider.tokenAttributes } : {}),
        ...(sa ? { serviceAccountTokenClaims: sa.claims, serviceAccountAnnotations: sa.annotations } : {}),
        ...(Object.keys(registryFor).length ? { registryFor } : {}),
        ...(live
          ? {
              live: {
                environment: live.environment?.name ?? null,
                kubeVersion: live.environment?.kubeletVersion ?? live.environment?.kubeVersion ?? null,
              },
            }
          : {}),
      },
      checks: [...result.checks, ...(live?.checks ?? [])],
      metrics: result.metrics,
      startedAt,
      reportDir,
      redactor,
    });
  },
};

async function verifyPullFlags(values: Flags, registryFor: Record<string, string>) {
  if (!values.image?.length) {
    throw new UsageError(`${NAME}: --verify-pull needs --image naming an image that exists in its registry`, {
      hint: 'the default probe images are made up; credprov registry up --seed pushes credprov/busybox you can use',
    });
  }
  const ca = values['verify-pull-ca']
    ? await readInputText(values['verify-pull-ca'], { label: '--verify-pull-ca' })
    : undefined;
  return verifyPullCheck({
    images: values.image,
    ...(ca ? { ca } : {}),
    ...(values['verify-pull-plain-http'] ? { plainHttp: true } : {}),
    ...(Object.keys(registryFor).length ? { registryFor } : {}),
  });
}

function parseRegistryFor(given: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of given) {
    const eq = kv.indexOf('=');
    const host = kv.slice(0, eq);
    const to = kv.slice(eq + 1);
    if (eq <= 0 || !to || /[/\s]/.test(host) || /[/\s]/.test(to))
      throw new UsageError(`--registry-for ${kv}: expected IMAGE_HOST=REGISTRY_HOST[:PORT]`, {
        hint: 'e.g. --registry-for 123456789012.dkr.ecr.us-east-1.amazonaws.com=registry.test:5000',
      });
    out[host] = to;
  }
  return out;
}

function parseTimeout(text: string | undefined): number {
  if (text === undefined) return KUBELET_PLUGIN_TIMEOUT_MS;
  const ms = parseGoDuration(text);
  if (ms === undefined || ms <= 0)
    throw new UsageError(`${NAME}: --timeout ${text} is not a positive duration`, {
      hint: 'write it like 1m, 30s or 500ms',
    });
  return ms;
}

async function requireExecutable(plugin: string): Promise<void> {
  let info;
  try {
    info = await stat(plugin);
  } catch {
    throw new ConfigError(`--plugin ${plugin}: no such file`, {
      hint: "give the path to the plugin executable, as it would sit in the kubelet's --image-credential-provider-bin-dir",
    });
  }
  if (info.isDirectory()) throw new ConfigError(`--plugin ${plugin}: is a directory, not an executable`);
  try {
    await access(plugin, constants.X_OK);
  } catch {
    throw new ConfigError(
      `--plugin ${plugin}: not executable (mode ${(info.mode & 0o777).toString(8).padStart(4, '0')})`,
      {
        hint: `chmod +x ${plugin}; the kubelet refuses to start when a provider's binary is not executable`,
      },
    );
  }
}

function parseAnnotations(provider: CredentialProvider, given: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (given.length === 0) return out;
  const attrs = provider.tokenAttributes;
  if (!attrs)
    throw new UsageError(
      `--service-account-annotation: provider ${provider.name} has no tokenAttributes, so the kubelet sends no annotations`,
    );
  const listed = [
    ...(attrs.requiredServiceAccountAnnotationKeys ?? []),
    ...(attrs.optionalServiceAccountAnnotationKeys ?? []),
  ];
  for (const kv of given) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--service-account-annotation ${kv}: expected KEY=VALUE`);
    const key = kv.slice(0, eq);
    if (!listed.includes(key)) {
      throw new UsageError(
        `--service-account-annotation ${key}: provider ${provider.name} does not list this key (${listed.join(', ') || 'it lists none'}), so the kubelet would not send it`,
      );
    }
    out[key] = kv.slice(eq + 1);
  }
  return out;
}

function pickProvider(config: CredentialProviderConfig, file: string, name: string | undefined): CredentialProvider {
  const names = config.providers.map((p) => p.name);
  if (name !== undefined) {
    const found = config.providers.find((p) => p.name === name);
    if (!found) throw new UsageError(`--provider ${name}: ${file} has no such provider (it has: ${names.join(', ')})`);
    return found;
  }
  if (config.providers.length === 1) return config.providers[0]!;
  throw new UsageError(`${file} has ${names.length} providers (${names.join(', ')}); pick one with --provider NAME`);
}
