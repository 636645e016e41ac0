// Reading an environment spec: YAML decoded strictly (an unknown key is an
// error naming its path and the file), then CREDPROV_* overrides from one
// table, then defaults. Validation is separate (validate.ts) and collects
// every problem.
import { parseDocument } from 'yaml';
import { ConfigError, type FieldProblem } from '../../core/errors.ts';
import { readInputText } from '../../core/input-file.ts';
import type { Logger } from '../../core/logger.ts';
import { yamlToJs } from '../../core/yaml.ts';
import type { PartialSpec } from './defaults.ts';

type Shape =
  | 'string'
  | 'number'
  | 'boolean'
  | 'strings'
  | 'gates'
  | 'object'
  | 'plugins'
  | { fields: Record<string, Shape> }
  | { list: Shape };

/** The spec's shape as users write it; anything not listed here is an unknown key. */
const SPEC: Record<string, Shape> = {
  apiVersion: 'string',
  kind: 'string',
  name: 'string',
  provider: 'string',
  kubeVersion: 'string',
  binDir: 'string',
  featureGates: { fields: { kubelet: 'gates', apiserver: 'gates' } },
  kubelet: { fields: { nodeName: 'string', version: 'string', config: 'object', extraArgs: 'strings' } },
  apiserver: { fields: { tokenWebhookConfigFile: 'string', authenticationConfigFile: 'string', extraArgs: 'strings' } },
  credentialProvider: { fields: { config: 'object', configFile: 'string', plugins: 'plugins' } },
  existing: { fields: { kubeconfig: 'string' } },
  kindCluster: { fields: { workers: 'number', nodeImage: 'string' } },
  timeouts: { fields: { nodeReady: 'string' } },
};

export const SPEC_API_VERSION = 'credprov.dev/v1alpha1';
export const SPEC_KIND = 'Environment';

/** Checks `value` against the spec's shape; returns every problem with its field path. */
export function checkShape(value: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!isObject(value)) return [{ field: '(root)', message: `expected a mapping, got ${kind(value)}` }];
  walkFields(value, SPEC, '', problems);
  return problems;
}

function walkFields(
  obj: Record<string, unknown>,
  fields: Record<string, Shape>,
  prefix: string,
  problems: FieldProblem[],
): void {
  for (const [k, v] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${k}` : k;
    const shape = fields[k];
    if (!shape) {
      problems.push({ field: path, message: `unknown field (known: ${Object.keys(fields).join(', ')})` });
      continue;
    }
    walk(v, shape, path, problems);
  }
}

function walk(v: unknown, shape: Shape, path: string, problems: FieldProblem[]): void {
  const want = (ok: boolean, expected: string) => {
    if (!ok) problems.push({ field: path, message: `expected ${expected}, got ${kind(v)}` });
    return ok;
  };
  if (shape === 'string') want(typeof v === 'string', 'a string');
  else if (shape === 'number') want(typeof v === 'number', 'a number');
  else if (shape === 'boolean') want(typeof v === 'boolean', 'true or false');
  else if (shape === 'object') want(isObject(v), 'a mapping');
  else if (shape === 'strings') {
    if (want(Array.isArray(v), 'a list of strings'))
      (v as unknown[]).forEach((x, i) => walk(x, 'string', `${path}[${i}]`, problems));
  } else if (shape === 'gates') {
    if (want(isObject(v), 'a mapping of gate name to true/false'))
      for (const [g, x] of Object.entries(v as object)) walk(x, 'boolean', `${path}.${g}`, problems);
  } else if (shape === 'plugins') {
    if (want(isObject(v), 'a mapping of plugin name to executable path'))
      for (const [g, x] of Object.entries(v as object)) walk(x, 'string', `${path}.${g}`, problems);
  } else if ('fields' in shape) {
    if (want(isObject(v), 'a mapping')) walkFields(v as Record<string, unknown>, shape.fields, path, problems);
  } else if (want(Array.isArray(v), 'a list')) {
    (v as unknown[]).forEach((x, i) => walk(x, shape.list, `${path}[${i}]`, problems));
  }
}

/** Parses spec YAML text; `file` only names the source in errors. */
export function parseSpec(text: string, file = '<spec>'): PartialSpec {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(`${file} is not valid YAML`, {
      file,
      problems: doc.errors.map((e) => ({
        field: `line ${e.linePos?.[0]?.line ?? 0}`,
        message: e.message.split('\n')[0]!,
      })),
    });
  }
  const value: unknown = yamlToJs(doc, file) ?? {};
  const problems = checkShape(value);
  const obj = value as Record<string, unknown>;
  if (obj.apiVersion !== undefined && obj.apiVersion !== SPEC_API_VERSION)
    problems.push({ field: 'apiVersion', message: `expected ${SPEC_API_VERSION}` });
  if (obj.kind !== undefined && obj.kind !== SPEC_KIND)
    problems.push({ field: 'kind', message: `expected ${SPEC_KIND}` });
  if (problems.length > 0)
    throw new ConfigError(
      `${file}: ${problems.length} problem${problems.length > 1 ? 's' : ''} in the environment spec`,
      { file, problems },
    );
  const { apiVersion: _a, kind: _k, ...spec } = obj;
  return spec as PartialSpec;
}

export async function loadSpecFile(file: string): Promise<PartialSpec> {
  return parseSpec(await readInputText(file, { label: 'environment spec' }), file);
}

interface EnvVar {
  name: string;
  field: string;
  set(spec: PartialSpec, value: string): void;
  /** Old names that still work, with a warning naming this one. */
  deprecated?: string[];
}

/** The one table of CREDPROV_* variables that override spec fields. */
export const ENV_VARS: EnvVar[] = [
  { name: 'CREDPROV_ENV_NAME', field: 'name', set: (s, v) => (s.name = v) },
  { name: 'CREDPROV_PROVIDER', field: 'provider', set: (s, v) => (s.provider = v as PartialSpec['provider']) },
  { name: 'CREDPROV_KUBE_VERSION', field: 'kubeVersion', set: (s, v) => (s.kubeVersion = v) },
  {
    name: 'CREDPROV_KUBELET_VERSION',
    field: 'kubelet.version',
    set: (s, v) => (s.kubelet = { ...s.kubelet, version: v }),
  },
  { name: 'CREDPROV_KUBE_BIN_DIR', field: 'binDir', set: (s, v) => (s.binDir = v), deprecated: ['CREDPROV_KUBE_DIR'] },
  {
    name: 'CREDPROV_NODE_READY_TIMEOUT',
    field: 'timeouts.nodeReady',
    set: (s, v) => (s.timeouts = { ...s.timeouts, nodeReady: v }),
  },
  { name: 'CREDPROV_KUBECONFIG', field: 'existing.kubeconfig', set: (s, v) => (s.existing = { kubeconfig: v }) },
  {
    name: 'CREDPROV_KIND_WORKERS',
    field: 'kindCluster.workers',
    set: (s, v) => (s.kindCluster = { ...s.kindCluster, workers: Number(v) }),
  },
  {
    name: 'CREDPROV_KIND_NODE_IMAGE',
    field: 'kindCluster.nodeImage',
    set: (s, v) => (s.kindCluster = { workers: 0, ...s.kindCluster, nodeImage: v }),
  },
  {
    name: 'CREDPROV_KUBELET_FEATURE_GATES',
    field: 'featureGates.kubelet',
    set: (s, v) =>
      (s.featureGates = {
        ...s.featureGates,
        kubelet: { ...s.featureGates?.kubelet, ...parseGates(v, 'CREDPROV_KUBELET_FEATURE_GATES') },
      }),
  },
  {
    name: 'CREDPROV_APISERVER_FEATURE_GATES',
    field: 'featureGates.apiserver',
    set: (s, v) =>
      (s.featureGates = {
        ...s.featureGates,
        apiserver: { ...s.featureGates?.apiserver, ...parseGates(v, 'CREDPROV_APISERVER_FEATURE_GATES') },
      }),
  },
];

/** Applies CREDPROV_* overrides over `spec` (a copy is returned). */
export function applyEnv(spec: PartialSpec, env: NodeJS.ProcessEnv, log?: Logger): PartialSpec {
  const out: PartialSpec = structuredClone(spec);
  for (const v of ENV_VARS) {
    let value = env[v.name];
    for (const old of v.deprecated ?? []) {
      if (env[old] !== undefined) {
        log?.warn(`${old} is deprecated; use ${v.name}`);
        value ??= env[old];
      }
    }
    if (value !== undefined && value !== '') v.set(out, value);
  }
  return out;
}

/** `A=true,B=false` (the kubelet's --feature-gates syntax). */
export function parseGates(text: string, source: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9]+)=(true|false)$/.exec(part);
    if (!m)
      throw new ConfigError(`${source}: '${part}' is not Gate=true|false`, {
        hint: 'write gates as Name=true,Other=false',
      });
    gates[m[1]!] = m[2] === 'true';
  }
  return gates;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kind(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'a mapping' : `${typeof v} ${JSON.stringify(v)}`;
}
