// CredentialProviderConfig: strict decoding and the kubelet's validation
// (pkg/credentialprovider/plugin/config.go validateCredentialProviderConfig),
// per Kubernetes version. Messages follow apimachinery's field errors
// ("Required value", `Invalid value: "x": …`, `Unsupported value: …`,
// "Duplicate value", "Forbidden"); field paths carry list indexes
// (providers[0].name) where the kubelet itself prints providers.name.
import { readdir, stat } from 'node:fs/promises';
import { isMap, isSeq } from 'yaml';
import { basename } from 'node:path';
import { ConfigError, type FieldProblem } from '../../core/errors.ts';
import { readInputText } from '../../core/input-file.ts';
import { yamlToJs } from '../../core/yaml.ts';
import { parseSchemeless } from '../../matching/gourl.ts';
import { patternWarning } from '../../matching/url.ts';
import { configFileOrder } from './config-files.ts';
import { behaviourFor, NEWEST_MINOR, parseKubeVersion, type KubeBehaviour } from '../../versions/table.ts';
import { decodeAgainst, parseDocument, type DecodeProblem, type FieldType } from './decode.ts';
import { formatGoDuration, parseGoDurationNs } from './goduration.ts';
import {
  CONFIG_API_VERSIONS,
  PROTOCOL_API_VERSIONS,
  TOKEN_CACHE_TYPES,
  type CredentialProvider,
  type CredentialProviderConfig,
} from './types.ts';

export interface ValidateOptions {
  /** Kubelet version whose rules apply; default the newest in the version table. */
  kubeVersion?: string;
  /** Kubelet --feature-gates overrides; unset gates take the version's default. */
  featureGates?: Record<string, boolean>;
}

export const SA_TOKEN_GATE = 'KubeletServiceAccountTokenForCredentialProviders';
const CONFIG_V1 = 'kubelet.config.k8s.io/v1';
const PROTOCOL_V1 = 'credentialprovider.kubelet.k8s.io/v1';

interface Rules {
  behaviour: KubeBehaviour;
  kubeVersion: string;
  saTokenGate: boolean;
}

function rulesFor(opts: ValidateOptions = {}): Rules {
  const v = parseKubeVersion(opts.kubeVersion ?? `1.${NEWEST_MINOR}`);
  const behaviour = behaviourFor(v);
  const def = behaviour.gateDefaults.KubeletServiceAccountTokenForCredentialProviders;
  const saTokenGate = opts.featureGates?.[SA_TOKEN_GATE] ?? (def === 'absent' ? false : def);
  return { behaviour, kubeVersion: v.text, saTokenGate };
}

/** The decode schema for a config of this apiVersion under this kubelet. */
function configSchema(configApiVersion: string, b: KubeBehaviour): FieldType & { kind: 'object' } {
  const str: FieldType = { kind: 'string' };
  const strings: FieldType = { kind: 'list', of: str };
  const tokenAttributes: FieldType = {
    kind: 'object',
    fields: {
      serviceAccountTokenAudience: str,
      ...(b.cacheTypeRequired ? { cacheType: str } : {}),
      requireServiceAccount: { kind: 'bool' },
      requiredServiceAccountAnnotationKeys: strings,
      optionalServiceAccountAnnotationKeys: strings,
    },
  };
  const provider: FieldType = {
    kind: 'object',
    fields: {
      name: str,
      matchImages: strings,
      defaultCacheDuration: { kind: 'duration' },
      apiVersion: str,
      args: strings,
      env: { kind: 'list', of: { kind: 'object', fields: { name: str, value: str } } },
      // Only the v1 config type has tokenAttributes; elsewhere it is an unknown field.
      ...(configApiVersion === CONFIG_V1 && b.tokenAttributesField ? { tokenAttributes } : {}),
    },
  };
  return { kind: 'object', fields: { apiVersion: str, kind: str, providers: { kind: 'list', of: provider } } };
}

interface DecodedConfig {
  config: CredentialProviderConfig;
  decodeProblems: DecodeProblem[];
}

function decodeConfig(text: string, file: string, rules: Rules): DecodedConfig {
  const { doc, lines } = parseDocument(text, file);
  if (!doc || doc.contents === null) {
    throw new ConfigError(`${file}: ${whatIsThere(text)}, no CredentialProviderConfig document`, {
      file,
      hint: 'the kubelet needs a document with apiVersion, kind and providers; start from fixtures/configs/valid-minimal.yaml',
    });
  }
  if (!isMap(doc.contents)) {
    const range = (doc.contents as unknown as { range?: [number, number] }).range;
    const line = range ? lines.linePos(range[0]).line : 1;
    const what = isSeq(doc.contents) ? 'a list' : 'a plain value';
    throw new ConfigError(
      `${file}:${line}: not a CredentialProviderConfig: the document is ${what}, not a mapping with apiVersion, kind and providers`,
      {
        file,
        hint: 'start from fixtures/configs/valid-minimal.yaml',
      },
    );
  }
  // apiVersion decides the schema, so peek at it first.
  const top = yamlToJs(doc, file);
  const apiVersion =
    top && typeof top === 'object' && typeof (top as Record<string, unknown>).apiVersion === 'string'
      ? ((top as Record<string, unknown>).apiVersion as string)
      : '';
  const decoded = decodeAgainst(doc, lines, configSchema(apiVersion, rules.behaviour));
  const v = decoded.value;
  const config = {
    apiVersion: (v.apiVersion as string | undefined) ?? '',
    kind: (v.kind as string | undefined) ?? '',
    providers: (v.providers as CredentialProvider[] | undefined) ?? [],
  } as CredentialProviderConfig;
  return { config, decodeProblems: decoded.problems };
}

/** What a file without a YAML document holds: nothing, only comments, or only document markers. */
function whatIsThere(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) return 'is empty';
  const comments = lines.filter((l) => l.startsWith('#')).length;
  if (comments === lines.length) return `holds only comments (${comments} line${comments === 1 ? '' : 's'})`;
  return 'holds no YAML document (only comments and document markers)';
}

/** Type-level checks the kubelet's decoder makes before validation (apiVersion, kind). */
function typeMetaProblems(cfg: CredentialProviderConfig): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!cfg.apiVersion)
    problems.push({
      field: 'apiVersion',
      message: `Required value: one of ${CONFIG_API_VERSIONS.map((x) => JSON.stringify(x)).join(', ')}`,
    });
  else if (!(CONFIG_API_VERSIONS as readonly string[]).includes(cfg.apiVersion)) {
    problems.push({
      field: 'apiVersion',
      message: `Unsupported value: ${JSON.stringify(cfg.apiVersion)}: supported values: ${CONFIG_API_VERSIONS.map((x) => JSON.stringify(x)).join(', ')}`,
    });
  }
  if (!cfg.kind) problems.push({ field: 'kind', message: 'Required value: "CredentialProviderConfig"' });
  else if (cfg.kind !== 'CredentialProviderConfig')
    problems.push({
      field: 'kind',
      message: `Unsupported value: ${JSON.stringify(cfg.kind)}: supported values: "CredentialProviderConfig"`,
    });
  return problems;
}

/**
 * Every rule of the kubelet's validateCredentialProviderConfig for that
 * version and gate setting, plus the apiVersion/kind checks of its decoder.
 */
export function validateProviderConfig(cfg: CredentialProviderConfig, opts?: ValidateOptions): FieldProblem[] {
  return validateWith(cfg, rulesFor(opts));
}

function validateWith(cfg: CredentialProviderConfig, rules: Rules): FieldProblem[] {
  const problems: FieldProblem[] = [...typeMetaProblems(cfg)];
  const add = (field: string, message: string) => problems.push({ field, message });
  const providers = cfg.providers ?? [];
  if (providers.length === 0) add('providers', 'Required value: at least 1 item in plugins is required');
  const seen = new Set<string>();
  providers.forEach((p, i) => {
    const at = `providers[${i}]`;
    const name = p.name ?? '';
    if (name === '') {
      // The kubelet's validation lets this through; exec.LookPath(binDir + "/") then fails and the kubelet exits.
      add(
        `${at}.name`,
        'Required value: the kubelet then execs the bin dir itself and exits ("error inspecting binary executable : exec: "<bin dir>": is a directory")',
      );
    }
    if (name.includes('/')) add(`${at}.name`, `Invalid value: ${q(name)}: provider name cannot contain '/'`);
    if (name.includes(' ')) add(`${at}.name`, `Invalid value: ${q(name)}: provider name cannot contain spaces`);
    if (name === '.') add(`${at}.name`, `Invalid value: ${q(name)}: provider name cannot be '.'`);
    if (name === '..') add(`${at}.name`, `Invalid value: ${q(name)}: provider name cannot be '..'`);
    if (seen.has(name)) {
      // From 1.34 the kubelet merges providers while reading (even from one file) and stops at a repeated name.
      add(
        `${at}.name`,
        rules.behaviour.configDirectory
          ? `duplicate provider name ${q(name)} found in configuration file(s)`
          : `Duplicate value: ${q(name)}`,
      );
    }
    seen.add(name);

    if (!p.apiVersion) add(`${at}.apiVersion`, 'Required value');
    else if (!(PROTOCOL_API_VERSIONS as readonly string[]).includes(p.apiVersion)) {
      add(
        `${at}.apiVersion`,
        `Unsupported value: ${q(p.apiVersion)}: supported values: ${[...PROTOCOL_API_VERSIONS].sort().map(q).join(', ')}`,
      );
    }

    const matchImages = p.matchImages ?? [];
    if (matchImages.length === 0)
      add(`${at}.matchImages`, 'Required value: at least 1 item in matchImages is required');
    matchImages.forEach((m, j) => {
      const parsed = parseSchemeless(m);
      if (!parsed.ok) add(`${at}.matchImages[${j}]`, `Invalid value: ${q(m)}: match image is invalid: ${parsed.error}`);
    });

    if (p.defaultCacheDuration === undefined || p.defaultCacheDuration === null)
      add(`${at}.defaultCacheDuration`, 'Required value');
    else {
      const d = parseGoDurationNs(String(p.defaultCacheDuration));
      if (!d.ok) add(`${at}.defaultCacheDuration`, `Invalid value: ${q(String(p.defaultCacheDuration))}: ${d.error}`);
      else if (d.ns < 0n)
        add(
          `${at}.defaultCacheDuration`,
          `Invalid value: ${q(formatGoDuration(d.ns))}: must be greater than or equal to 0`,
        );
    }

    const ta = p.tokenAttributes;
    if (ta) {
      const tp = `${at}.tokenAttributes`;
      if (!rules.saTokenGate)
        add(tp, `Forbidden: tokenAttributes is not supported when ${SA_TOKEN_GATE} feature gate is disabled`);
      if (!ta.serviceAccountTokenAudience) add(`${tp}.serviceAccountTokenAudience`, 'Required value');
      if (ta.requireServiceAccount === undefined || ta.requireServiceAccount === null)
        add(`${tp}.requireServiceAccount`, 'Required value');
      if (p.apiVersion !== PROTOCOL_V1)
        add(tp, `Forbidden: tokenAttributes is only supported for ${PROTOCOL_V1} API version`);
      const required = ta.requiredServiceAccountAnnotationKeys ?? [];
      const optional = ta.optionalServiceAccountAnnotationKeys ?? [];
      if (ta.requireServiceAccount === false && required.length > 0) {
        add(
          `${tp}.requiredServiceAccountAnnotationKeys`,
          'Forbidden: requireServiceAccount cannot be false when requiredServiceAccountAnnotationKeys is set',
        );
      }
      problems.push(...annotationKeyProblems(`${tp}.requiredServiceAccountAnnotationKeys`, required));
      problems.push(...annotationKeyProblems(`${tp}.optionalServiceAccountAnnotationKeys`, optional));
      const both = [...new Set(required.filter((k) => optional.includes(k)))].sort();
      if (both.length > 0)
        add(tp, `Invalid value: ${JSON.stringify(both)}: annotation keys cannot be both required and optional`);
      if (rules.behaviour.cacheTypeRequired) {
        const ct = ta.cacheType;
        const supported = [...TOKEN_CACHE_TYPES].sort();
        if (!ct)
          add(
            `${tp}.cacheType`,
            `Required value: cacheType is required to be set when tokenAttributes is specified. Supported values are: ${supported.join(', ')}`,
          );
        else if (!supported.includes(ct))
          add(`${tp}.cacheType`, `Unsupported value: ${q(ct)}: supported values: ${supported.map(q).join(', ')}`);
      }
    }
  });
  return problems;
}

/** Entries the kubelet accepts but that can never match an image: worth a warning, not a refusal. */
export function providerConfigWarnings(cfg: CredentialProviderConfig): FieldProblem[] {
  const out: FieldProblem[] = [];
  (cfg.providers ?? []).forEach((p, i) =>
    (p.matchImages ?? []).forEach((m, j) => {
      const w = parseSchemeless(m).ok ? patternWarning(m) : undefined;
      if (w)
        out.push({
          field: `providers[${i}].matchImages[${j}]`,
          message: `${JSON.stringify(m)} never matches an image: ${w}`,
        });
    }),
  );
  return out;
}

// apimachinery IsQualifiedName (content.IsLabelKey) on the lowercased key.
const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else {
      if (prefix.length > 253) errs.push('prefix part must be no more than 253 characters');
      if (!new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`).test(prefix))
        errs.push(`prefix part ${regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com')}`);
    }
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (!new RegExp(`^${LABEL_KEY_FMT}$`).test(name))
    errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

function annotationKeyProblems(field: string, keys: string[]): FieldProblem[] {
  const out: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const k of keys) {
    for (const msg of qualifiedNameErrors(k.toLowerCase()))
      out.push({ field, message: `Invalid value: ${q(k)}: ${msg}` });
    if (seen.has(k)) out.push({ field, message: `Duplicate value: ${q(k)}` });
    seen.add(k);
  }
  return out;
}

function q(s: string): string {
  return JSON.stringify(s);
}

function refusal(file: string, rules: Rules, problems: FieldProblem[]): ConfigError {
  return new ConfigError(
    `${file}: kubelet ${rules.kubeVersion} would refuse this CredentialProviderConfig (${problems.length} problem${problems.length === 1 ? '' : 's'})`,
    {
      file,
      problems,
      hint: 'the kubelet exits at startup with "Failed to register CRI auth plugins" when its config is invalid',
    },
  );
}

function decodeAndValidate(
  text: string,
  file: string,
  rules: Rules,
): { config: CredentialProviderConfig; problems: FieldProblem[] } {
  const { config, decodeProblems } = decodeConfig(text, file, rules);
  // A wrong JSON type aborts the kubelet's decode before validation; unknown
  // and duplicate fields too, but validating anyway shows their consequence.
  const fatal = decodeProblems.some((p) => p.kind === 'type');
  const problems: FieldProblem[] = decodeProblems.map(({ field, message }) => ({ field, message }));
  if (!fatal) problems.push(...validateWith(config, rules));
  else problems.push(...typeMetaProblems(config));
  return { config, problems };
}

/** Decodes (YAML or JSON, strictly) and validates; throws ConfigError with kubelet-style field problems. */
export function parseProviderConfig(text: string, file: string, opts?: ValidateOptions): CredentialProviderConfig {
  const rules = rulesFor(opts);
  const { config, problems } = decodeAndValidate(text, file, rules);
  if (problems.length > 0) throw refusal(file, rules, problems);
  return config;
}

/** The config files the kubelet reads for a --image-credential-provider-config directory, in its order. */
export async function configDirectoryFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return configFileOrder(
    dir,
    entries.map((e) => ({ name: e.name, isDirectory: e.isDirectory() })),
  );
}

/**
 * Reads --image-credential-provider-config as the kubelet would: a file, or
 * (from 1.34) a directory whose *.json/*.yaml/*.yml files are merged in
 * lexical order; a provider name in two files is an error.
 */
export async function loadProviderConfig(path: string, opts?: ValidateOptions): Promise<CredentialProviderConfig> {
  const rules = rulesFor(opts);
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch {
    // Not there or not readable: readInputText says which, in the same words as for any input file.
    isDir = false;
  }
  if (!isDir) return parseProviderConfig(await readText(path), path, opts);
  if (!rules.behaviour.configDirectory) {
    throw new ConfigError(
      `${path} is a directory; kubelet ${rules.kubeVersion} reads --image-credential-provider-config only as a file (directories from 1.34)`,
      {
        file: path,
        hint: 'pass one file, or a --kube-version of 1.34 or newer',
      },
    );
  }
  const files = await configDirectoryFiles(path);
  if (files.length === 0) {
    throw new ConfigError(
      `${path}: no configuration files found in directory (the kubelet reads *.json, *.yaml and *.yml)`,
      { file: path },
    );
  }
  const merged: CredentialProvider[] = [];
  const from = new Map<string, string>();
  const problems: FieldProblem[] = [];
  for (const file of files) {
    const { config, problems: own } = decodeAndValidate(await readText(file), file, rules);
    problems.push(...own.map((p) => ({ field: `${basename(file)}: ${p.field}`, message: p.message })));
    for (const provider of config.providers) {
      const earlier = from.get(provider.name);
      if (earlier !== undefined) {
        problems.push({
          field: `${basename(file)}: providers`,
          message: `duplicate provider name ${q(provider.name)} found in configuration file(s) (also in ${basename(earlier)})`,
        });
        continue;
      }
      from.set(provider.name, file);
      merged.push(provider);
    }
  }
  if (problems.length > 0) throw refusal(path, rules, problems);
  return { apiVersion: CONFIG_V1, kind: 'CredentialProviderConfig', providers: merged };
}

function readText(file: string): Promise<string> {
  return readInputText(file, {
    hint: 'pass the path of a CredentialProviderConfig file (or, for kubelet 1.34+, a directory of them)',
  });
}
