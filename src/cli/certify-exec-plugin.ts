// credprov certify exec-plugin: checks a client-go exec credential plugin
// (KEP-541) from a kubeconfig user, or from flags describing the exec stanza.
// Parses flags, loads and validates the stanza, makes sure the binary exists
// (client-go's not-found message with installHint), runs the certification,
// and hands the results to finishRun (reports, summary, exit code).
import { resolve } from 'node:path';
import { loadKubeconfigExecUser } from '../api/exec/kubeconfig.ts';
import {
  INTERACTIVE_MODES,
  V1ALPHA1,
  isSupportedExecApiVersion,
  type ExecConfig,
  type InteractiveMode,
} from '../api/exec/types.ts';
import { ConfigError, UsageError } from '../core/errors.ts';
import { DEFAULT_KUBE_VERSION } from '../versions/table.ts';
import { parseGoDuration } from '../core/duration.ts';
import { stderrProgress } from '../core/progress.ts';
import { Redactor } from '../core/redact.ts';
import { certifyExecPlugin } from '../certify/exec-plugin/certify.ts';
import type { MatrixClient } from '../certify/exec-plugin/clients.ts';
import { availableProbes, isExecClientName } from '../clients/index.ts';
import { CLIENT_NAMES, EXEC_CLIENT_NAMES, type ExecClientName } from '../clients/probe.ts';
import { kubeVersionOrMinor } from './kube-version-flag.ts';
import { InvocationLog } from '../plugin/invocation.ts';
import { killRunningExecPlugins, resolveExecCommand, type ExecPlugin } from '../plugin/client-exec.ts';
import { prepareReportDir } from '../report/report-dir.ts';
import type { Command, CommandContext } from './command.ts';
import { parseFlags } from './flags.ts';
import { withInterrupt } from './interrupt.ts';
import { finishCertify } from './certify-finish.ts';
import { sweepOrphanedRuns, warnOfOrphans } from '../plugin/strays.ts';

const NAME = 'certify exec-plugin';
export const DEFAULT_EXEC_TIMEOUT = '10s';

const usage = `credprov certify exec-plugin: check a client-go exec credential plugin against the KEP-541 contract

Usage:
  credprov certify exec-plugin --kubeconfig PATH [--user NAME] [--timeout DURATION] [--report-dir DIR]
  credprov certify exec-plugin --command PATH [--arg A]... [--env K=V]... --api-version VERSION
                               [--interactive-mode Never|IfAvailable|Always] [--provide-cluster-info]
                               [--timeout DURATION] [--report-dir DIR]
  either form also takes: [--clients kubectl,client-go,client-node,python|none] [--kube-version V]

The plugin is run as client-go runs it (command relative to the kubeconfig's directory
when it holds a '/', else on PATH; env = yours + exec.env + KUBERNETES_EXEC_INFO; stdin
only when interactive), 14 times: a first and second run, 8 concurrent runs, a run with
an open but silent stdin, a run configured with the other ExecCredential version (v1 or
v1beta1), and two runs with a KUBERNETES_EXEC_INFO no plugin can honour (to see how it
fails); 15 with client-node among the clients (one more run as it runs plugins, without
KUBERNETES_EXEC_INFO). The report's counts (metrics.invocations, "N runs") are these.
It is never given your terminal: certification is non-interactive.

Then the plugin is run through real clients (by default every one this machine has;
'credprov clients ls' lists them): kubectl, client-go (both of --kube-version), the
@kubernetes/client-node library and the official Python client. Each loads a kubeconfig
credprov writes (your exec stanza; the cluster: a scripted HTTPS endpoint on 127.0.0.1)
and makes one request. A plugin any of them refuses fails that client's check
(EP-CLIENT-<NAME>), with the client's own error; clients differ, e.g. the Python client
refuses an answer without kind, which client-go accepts (src/clients/decoding.ts).

Flags:
  --kubeconfig PATH         kubeconfig holding the user's exec stanza
  --user NAME               user in the kubeconfig (default: the current context's user)
  --command PATH            the plugin, when there is no kubeconfig (a path is relative to the cwd)
  --arg A                   an argument for the plugin (repeatable, in order)
  --env K=V                 an extra environment variable (repeatable)
  --api-version VERSION     client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1
  --interactive-mode MODE   Never, IfAvailable (default) or Always
  --provide-cluster-info    send spec.cluster (a placeholder cluster, https://kubernetes.credprov.test:6443)
  --timeout DURATION        how long one run may take (default ${DEFAULT_EXEC_TIMEOUT}; Go syntax: 500ms, 30s, 1m)
  --clients LIST            real clients to run the plugin through, comma-separated: ${EXEC_CLIENT_NAMES.join(', ')};
                            'all' for the seven, 'none' for none (default: those of ${CLIENT_NAMES.join(', ')}
                            available here; naming one that is not available is an error that says how to get it)
  --kube-version V          the release kubectl and client-go are taken at (default ${DEFAULT_KUBE_VERSION}); a minor
                            (1.36) means its newest release cached here, else the newest the Go proxy knows
  --report-dir DIR          where report.json, junit.xml, report.md and invocations.jsonl go
                            (default ./reports/<timestamp>)

Checks (MUST unless marked): EP-EXEC, EP-APIVERSION, EP-KIND, EP-STATUS, EP-CREDENTIAL-SHAPE, EP-TOKEN-HEADER-VALUE, EP-CERT-VALID,
  EP-EXPIRY-FORMAT, EP-STDOUT-ONLY-JSON, EP-FAILURE-EXPLAINED, EP-NONINTERACTIVE-NO-BLOCK, EP-TIMEOUT,
  EP-NO-STDOUT-HOLDER, EP-REPEAT, EP-CONCURRENCY; SHOULD: EP-FOLLOWS-EXEC-INFO-VERSION, EP-SETS-EXPIRY,
  EP-NO-SECRETS-ON-STDERR, EP-NO-LEFTOVER-PROCESSES; with clients: EP-CLIENT-KUBECTL, EP-CLIENT-CLIENT-GO,
  EP-CLIENT-CLIENT-NODE, EP-CLIENT-PYTHON

Examples:
  credprov certify exec-plugin --kubeconfig ~/.kube/config --user oidc
  credprov certify exec-plugin --command ./bin/my-plugin --arg get-token \\
      --api-version client.authentication.k8s.io/v1 --interactive-mode Never --report-dir out/
  credprov certify exec-plugin --command fixtures/exec-plugins/broken-stdout-noise \\
      --api-version client.authentication.k8s.io/v1
  credprov certify exec-plugin --command fixtures/exec-plugins/broken-no-kind \\
      --api-version client.authentication.k8s.io/v1 --clients client-go,python

Exit codes: 0 every MUST check passed, 1 a MUST check failed, 2 usage or input error, 3 harness error.
Stdout gets the path of report.json (as certify kubelet-plugin); progress and the summary go to stderr.
`;

interface Flags {
  kubeconfig?: string;
  user?: string;
  command?: string;
  arg?: string[];
  env?: string[];
  'api-version'?: string;
  'interactive-mode'?: string;
  'provide-cluster-info'?: boolean;
  timeout?: string;
  'report-dir'?: string;
  clients?: string[];
  'kube-version'?: string;
}

/** The cluster spec.cluster describes in --command mode, where there is no kubeconfig to take one from. */
export const PLACEHOLDER_CLUSTER = { server: 'https://kubernetes.credprov.test:6443' };

export const command: Command = {
  path: ['certify', 'exec-plugin'],
  summary: 'check a client-go exec credential plugin against the KEP-541 contract',
  usage,
  async run(argv: string[], ctx: CommandContext): Promise<number> {
    const { values: f } = parseFlags<Flags>(NAME, argv, {
      kubeconfig: { type: 'string' },
      user: { type: 'string' },
      command: { type: 'string' },
      arg: { type: 'string', multiple: true },
      env: { type: 'string', multiple: true },
      'api-version': { type: 'string' },
      'interactive-mode': { type: 'string' },
      'provide-cluster-info': { type: 'boolean' },
      timeout: { type: 'string' },
      'report-dir': { type: 'string' },
      clients: { type: 'string', multiple: true },
      'kube-version': { type: 'string' },
    });
    const timeoutMs = parseTimeout(f.timeout ?? DEFAULT_EXEC_TIMEOUT);
    const { version: kubeVersion, note } = await kubeVersionOrMinor(NAME, f['kube-version'], ctx.env);
    if (note) ctx.log.info(note);
    const named = parseClientsFlag(f.clients);
    const { plugin, subject } = await pluginFromFlags(f, ctx);

    const resolved = await resolveExecCommand(plugin, ctx.env);
    if (!resolved.ok) {
      const [reason, ...rest] = resolved.error.split('\n');
      const where = f.kubeconfig
        ? `fix exec.command for user "${subject.user as string}" in ${f.kubeconfig}`
        : 'fix --command';
      throw new ConfigError(reason!, {
        ...(rest.join('\n').trim() ? { detail: rest.join('\n').trim() } : {}),
        hint: resolved.notFound
          ? `install the plugin, or ${where} (a bare name is looked up on PATH; a path is resolved against ${plugin.baseDir})`
          : `make it executable (chmod +x) or ${where}`,
      });
    }
    subject.resolvedCommand = resolved.path;
    // Before any plugin runs: a named client this machine lacks is bad input, said at once.
    const { clients, unavailable } = await chooseClients(named, kubeVersion, ctx.env);
    for (const u of unavailable) ctx.log.warn(`client ${u.name} left out: ${u.reason}`);

    const startedAt = new Date();
    // Before any plugin runs: a report dir that cannot be written should cost a second, not a certification.
    const reportDir = await prepareReportDir(f['report-dir'], ctx.cwd, startedAt);
    const redactor = new Redactor();
    for (const e of plugin.config.env) redactor.add(e.value.length >= 8 ? e.value : undefined);
    const log = new InvocationLog(resolve(reportDir, 'invocations.jsonl'), redactor);
    const progress = stderrProgress();

    warnOfOrphans(ctx.log, sweepOrphanedRuns());
    const { checks, metrics } = await withInterrupt(async (signal) => {
      signal.addEventListener('abort', () => killRunningExecPlugins(), { once: true });
      return certifyExecPlugin(plugin, {
        log,
        timeoutMs,
        redactor,
        parentEnv: ctx.env,
        cwd: ctx.cwd,
        progress,
        signal,
        clients,
      });
    });
    // The command line is left out of the report: --env values may be secrets.
    return finishCertify(ctx, {
      command: NAME,
      subject: {
        ...subject,
        timeout: f.timeout ?? DEFAULT_EXEC_TIMEOUT,
        clients: clients.map((c) => ({ name: c.probe.name, version: c.version })),
        ...(unavailable.length ? { clientsLeftOut: unavailable } : {}),
      },
      checks,
      metrics,
      startedAt,
      reportDir,
      redactor,
    });
  },
};

/** --clients as written: the names (checked), [] for none, undefined for the default (the four core clients available). */
function parseClientsFlag(flag: string[] | undefined): ExecClientName[] | undefined {
  if (flag === undefined) return undefined;
  const words = flag
    .flatMap((v) => v.split(','))
    .map((w) => w.trim())
    .filter(Boolean);
  if (words.length === 1 && words[0] === 'none') return [];
  if (words.length === 1 && words[0] === 'all') return [...EXEC_CLIENT_NAMES];
  if (words.length === 0)
    throw new UsageError(`${NAME}: --clients is empty`, {
      hint: `name some of ${EXEC_CLIENT_NAMES.join(', ')}, or all, or none`,
    });
  for (const w of words) {
    if (!isExecClientName(w))
      throw new UsageError(`${NAME}: --clients ${JSON.stringify(w)} is not a client credprov knows`, {
        hint: `use some of ${EXEC_CLIENT_NAMES.join(', ')}, or all, or none`,
      });
  }
  return EXEC_CLIENT_NAMES.filter((n) => words.includes(n));
}

/**
 * The clients to run the plugin through: the named ones, each of which must be
 * available (else exit 2, naming what is missing and how to get it), or by
 * default every client this machine has.
 */
async function chooseClients(
  named: ExecClientName[] | undefined,
  kubeVersion: string,
  env: NodeJS.ProcessEnv,
): Promise<{ clients: MatrixClient[]; unavailable: Array<{ name: ExecClientName; reason: string }> }> {
  if (named?.length === 0) return { clients: [], unavailable: [] };
  const all = await availableProbes<ExecClientName>({ kubeVersion, env }, named ?? CLIENT_NAMES);
  const missing = all.filter((c) => !c.availability.ok);
  if (named && missing.length) {
    throw new UsageError(
      `${NAME}: --clients names ${missing.map((c) => c.probe.name).join(', ')}, which this machine cannot run`,
      {
        detail: missing.map((c) => `${c.probe.name}: ${c.availability.ok ? '' : c.availability.reason}`).join('\n'),
        hint: `'credprov clients ls' lists the clients available here; leave --clients out to use just those`,
      },
    );
  }
  return {
    clients: all.flatMap((c) => (c.availability.ok ? [{ probe: c.probe, version: c.availability.version }] : [])),
    // By default a client this machine lacks is left out; the report says which and why.
    unavailable: all.flatMap((c) => (c.availability.ok ? [] : [{ name: c.probe.name, reason: c.availability.reason }])),
  };
}

function parseTimeout(text: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined || ms <= 0)
    throw new UsageError(`${NAME}: --timeout ${JSON.stringify(text)} is not a positive duration`, {
      hint: 'write it like 500ms, 10s or 1m',
    });
  return ms;
}

async function pluginFromFlags(
  f: Flags,
  ctx: CommandContext,
): Promise<{ plugin: ExecPlugin; subject: Record<string, unknown> }> {
  const stanzaFlags = (
    ['command', 'arg', 'env', 'api-version', 'interactive-mode', 'provide-cluster-info'] as const
  ).filter((k) => f[k] !== undefined);
  if (f.kubeconfig !== undefined) {
    const extra = stanzaFlags.filter((k) => k !== 'command');
    if (f.command !== undefined)
      throw new UsageError(`${NAME}: give either --kubeconfig or --command, not both`, {
        hint: 'with --kubeconfig the exec stanza names the command',
      });
    if (extra.length > 0)
      throw new UsageError(`${NAME}: --${extra[0]} applies only with --command`, {
        hint: `with --kubeconfig, set it in users[].user.exec of ${f.kubeconfig}`,
      });
    const file = resolve(ctx.cwd, f.kubeconfig);
    const loaded = await loadKubeconfigExecUser(file, f.user);
    for (const w of loaded.warnings) ctx.log.warn(`${file}: ${w.field}: ${w.message}${w.hint ? ` (${w.hint})` : ''}`);
    return {
      plugin: {
        config: loaded.config,
        baseDir: loaded.baseDir,
        ...(loaded.cluster ? { cluster: loaded.cluster } : {}),
      },
      subject: {
        kind: 'client-go exec credential plugin',
        kubeconfig: file,
        user: loaded.user,
        ...(loaded.clusterName ? { cluster: loaded.clusterName, server: loaded.cluster?.server } : {}),
        ...describe(loaded.config),
      },
    };
  }
  if (f.command === undefined) {
    throw new UsageError(
      `${NAME}: say which plugin to certify: --kubeconfig PATH [--user NAME], or --command PATH --api-version VERSION`,
      { hint: `run 'credprov ${NAME} --help' for examples` },
    );
  }
  if (f.user !== undefined) throw new UsageError(`${NAME}: --user applies only with --kubeconfig`);
  const apiVersion = f['api-version'];
  if (!apiVersion)
    throw new UsageError(`${NAME}: --api-version is required with --command`, {
      hint: 'use client.authentication.k8s.io/v1 (or v1beta1): the version your plugin answers in',
    });
  if (apiVersion === V1ALPHA1)
    throw new UsageError(`${NAME}: --api-version ${apiVersion} was removed in Kubernetes 1.24`, {
      hint: 'use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1',
    });
  if (!isSupportedExecApiVersion(apiVersion))
    throw new UsageError(`${NAME}: exec plugin: invalid apiVersion "${apiVersion}"`, {
      hint: 'use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1',
    });
  const mode = f['interactive-mode'] ?? 'IfAvailable';
  if (!(INTERACTIVE_MODES as readonly string[]).includes(mode))
    throw new UsageError(`${NAME}: invalid --interactive-mode "${mode}"`, {
      hint: `use one of ${INTERACTIVE_MODES.join(', ')}`,
    });
  const env = (f.env ?? []).map((kv) => {
    const i = kv.indexOf('=');
    if (i <= 0) throw new UsageError(`${NAME}: --env ${JSON.stringify(kv)} must be NAME=VALUE`);
    return { name: kv.slice(0, i), value: kv.slice(i + 1) };
  });
  const config: ExecConfig = {
    command: f.command,
    args: f.arg ?? [],
    env,
    apiVersion,
    interactiveMode: mode as InteractiveMode,
    provideClusterInfo: f['provide-cluster-info'] ?? false,
  };
  return {
    plugin: { config, baseDir: ctx.cwd, ...(config.provideClusterInfo ? { cluster: PLACEHOLDER_CLUSTER } : {}) },
    subject: { kind: 'client-go exec credential plugin', ...describe(config) },
  };
}

/** The stanza as the report shows it: env by name only (values may be secrets). */
function describe(c: ExecConfig): Record<string, unknown> {
  return {
    command: c.command,
    args: c.args,
    envNames: c.env.map((e) => e.name),
    apiVersion: c.apiVersion,
    interactiveMode: c.interactiveMode,
    provideClusterInfo: c.provideClusterInfo,
  };
}
