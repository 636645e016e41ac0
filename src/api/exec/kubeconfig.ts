// Loads just enough of a kubeconfig to run one user's exec plugin as kubectl
// would: the exec stanza (validated with kubectl's messages) and the cluster
// of the context that uses it (for provideClusterInfo). Errors name the file
// and, for YAML, the line.
import { dirname, isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { ConfigError } from '../../core/errors.ts';
import { readInputBytes, readInputText } from '../../core/input-file.ts';
import { yamlToJs } from '../../core/yaml.ts';
import { EXEC_CLUSTER_EXTENSION, type ExecCluster, type ExecConfig } from './types.ts';
import { validateExecConfig, type ExecProblem } from './validate.ts';

export interface LoadedExecUser {
  file: string;
  /** Directory relative commands and CA files are resolved against. */
  baseDir: string;
  user: string;
  config: ExecConfig;
  /** The cluster of the context that uses this user, as spec.cluster would carry it. */
  cluster?: ExecCluster;
  clusterName?: string;
  warnings: ExecProblem[];
}

type Obj = Record<string, unknown>;

export async function loadKubeconfigExecUser(file: string, userName?: string): Promise<LoadedExecUser> {
  const text = await readInputText(file, {
    label: 'kubeconfig',
    hint: 'pass --kubeconfig with the path of a kubeconfig file',
  });
  return parseKubeconfigExecUser(text, file, userName);
}

export async function parseKubeconfigExecUser(text: string, file: string, userName?: string): Promise<LoadedExecUser> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter: lines });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    let line = lines.linePos(e.pos[0]).line;
    let what = e.message.split('\n')[0]!;
    // The parser notices an unclosed quote at the end of the file; the line that opened it is the one to fix.
    const quote = /^Missing closing (["'])quote/.exec(what)?.[1];
    if (quote) {
      const opened = text.lastIndexOf(quote, e.pos[0] - 1);
      if (opened >= 0) {
        line = lines.linePos(opened).line;
        what = `a ${quote === '"' ? 'double' : 'single'} quote opened on this line is never closed`;
      }
    }
    throw new ConfigError(`${file}${line ? `:${line}` : ''}: not valid YAML: ${what}`, {
      file,
      hint: 'a kubeconfig is YAML (or JSON); check the indentation and quoting on that line',
    });
  }
  const root = yamlToJs(doc, file);
  if (!isObj(root)) {
    throw new ConfigError(`${file}: not a kubeconfig: expected a mapping with users, clusters and contexts`, {
      file,
      hint: 'a kubeconfig starts with apiVersion: v1 and kind: Config',
    });
  }
  if (root.kind !== undefined && root.kind !== 'Config') {
    throw new ConfigError(`${file}: kind is "${String(root.kind)}", a kubeconfig has kind: Config`, { file });
  }
  const users = namedList(root, 'users', 'user', file);
  const contexts = namedList(root, 'contexts', 'context', file);
  const clusters = namedList(root, 'clusters', 'cluster', file);
  // client-go decodes these lists into maps, in this order, and refuses the whole file on a repeated name.
  refuseDuplicates(file, 'clusters', clusters, '*[]NamedCluster into *map[string]*api.Cluster');
  refuseDuplicates(file, 'users', users, '*[]NamedAuthInfo into *map[string]*api.AuthInfo');
  refuseDuplicates(file, 'contexts', contexts, '*[]NamedContext into *map[string]*api.Context');
  const currentContext = typeof root['current-context'] === 'string' ? root['current-context'] : undefined;

  let name = userName;
  if (name === undefined) {
    const ctx = contexts.find((c) => c.name === currentContext);
    const ctxUser = ctx && typeof ctx.body.user === 'string' ? ctx.body.user : undefined;
    if (ctxUser) name = ctxUser;
    else if (users.length === 1) name = users[0]!.name;
    else {
      throw new ConfigError(`${file}: no --user given and the current context names no user`, {
        file,
        hint:
          users.length > 0 ? `pick one with --user: ${users.map((u) => u.name).join(', ')}` : 'the file has no users',
      });
    }
  }
  const index = users.findIndex((u) => u.name === name);
  if (index < 0) {
    throw new ConfigError(
      `${file}: user "${name}" not found; users present: ${users.length > 0 ? users.map((u) => u.name).join(', ') : '(none)'}`,
      {
        file,
        hint: 'pass --user with one of the names under users[].name',
      },
    );
  }
  const userBody = users[index]!.body;
  if (userBody.exec === undefined || userBody.exec === null) {
    throw new ConfigError(`${file}: user "${name}" has no exec stanza (users[${index}].user.exec)`, {
      file,
      hint: 'certify exec-plugin needs a user whose credentials come from an exec plugin',
    });
  }
  const at = `users[${index}].user.exec`;
  const { config, problems } = validateExecConfig(userBody.exec, name, at, userBody);
  const errors = problems.filter((p) => p.severity === 'error');
  if (!config || errors.length > 0) throw kubectlConfigError(file, errors, problems);

  const baseDir = dirname(resolve(file));
  const loaded: LoadedExecUser = {
    file,
    baseDir,
    user: name,
    config,
    warnings: problems.filter((p) => p.severity === 'warning'),
  };

  // The cluster is the one the client would talk to: current context if it uses this user, else the first context that does.
  const ctx =
    contexts.find((c) => c.name === currentContext && c.body.user === name) ??
    contexts.find((c) => c.body.user === name);
  const clusterName = ctx && typeof ctx.body.cluster === 'string' ? ctx.body.cluster : undefined;
  const cluster = clusterName ? clusters.find((c) => c.name === clusterName) : undefined;
  if (cluster) {
    loaded.clusterName = cluster.name;
    loaded.cluster = await toExecCluster(cluster.body, baseDir, file, clusters.indexOf(cluster));
  } else if (config.provideClusterInfo) {
    throw new ConfigError(
      `${file}: provideClusterInfo is set for user "${name}" but no context uses that user with a cluster`,
      {
        file,
        hint:
          'add a context {cluster: <name>, user: ' +
          name +
          '} so the plugin can be told which cluster it authenticates to',
      },
    );
  }
  return loaded;
}

/** kubectl's way of printing configuration errors: one entry is printed alone; several under "Error in configuration". */
export function kubectlConfigError(file: string, errors: ExecProblem[], all: ExecProblem[] = errors): ConfigError {
  const problems = all.map((p) => ({
    field: p.field,
    message: `${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`,
  }));
  const warnings = all.filter((p) => p.severity === 'warning');
  // A typo warning ("did you mean interactiveMode?") usually explains the error, so its hint comes first.
  const hint =
    [
      ...warnings.filter((p) => p.hint).map((p) => `${p.field}: ${p.hint}`),
      ...errors.map((p) => p.hint).filter((h): h is string => !!h),
    ].join('; ') || undefined;
  if (errors.length === 1) {
    const detail = [`field: ${errors[0]!.field}`, ...warnings.map((w) => `${w.field}: warning: ${w.message}`)].join(
      '\n',
    );
    return new ConfigError(`${file}: ${errors[0]!.message}`, { file, problems, detail, ...(hint ? { hint } : {}) });
  }
  return new ConfigError(`${file}: Error in configuration: ${errors.length} problems`, {
    file,
    problems,
    detail: problems.map((p) => `* ${p.message} (${p.field})`).join('\n'),
    ...(hint ? { hint } : {}),
  });
}

async function toExecCluster(c: Obj, baseDir: string, file: string, index: number): Promise<ExecCluster> {
  const out: ExecCluster = { server: typeof c.server === 'string' ? c.server : '' };
  if (typeof c['tls-server-name'] === 'string' && c['tls-server-name']) out['tls-server-name'] = c['tls-server-name'];
  if (c['insecure-skip-tls-verify'] === true) out['insecure-skip-tls-verify'] = true;
  if (typeof c['certificate-authority-data'] === 'string' && c['certificate-authority-data']) {
    out['certificate-authority-data'] = c['certificate-authority-data'];
  } else if (typeof c['certificate-authority'] === 'string' && c['certificate-authority']) {
    // rest.ConfigToExecCluster inlines a CA file; clientcmd resolves it against the kubeconfig's directory.
    const caPath = isAbsolute(c['certificate-authority'])
      ? c['certificate-authority']
      : resolve(baseDir, c['certificate-authority']);
    const ca = await readInputBytes(caPath, { label: `${file}: clusters[${index}].certificate-authority` });
    out['certificate-authority-data'] = ca.toString('base64');
  }
  if (typeof c['proxy-url'] === 'string' && c['proxy-url']) out['proxy-url'] = c['proxy-url'];
  if (c['disable-compression'] === true) out['disable-compression'] = true;
  const ext = Array.isArray(c.extensions)
    ? c.extensions.find((e) => isObj(e) && e.name === EXEC_CLUSTER_EXTENSION)
    : undefined;
  if (isObj(ext) && ext.extension !== undefined) out.config = ext.extension;
  return out;
}

/**
 * client-go's conversion error (clientcmd/api/v1/conversion.go) as kubectl prints it
 * (loader.go: error loading config file "<file>": …). client-go then prints the whole
 * list with %v, credentials included: that part is left out.
 */
function refuseDuplicates(file: string, key: string, list: Array<{ name: string }>, conversion: string): void {
  const seen = new Map<string, number>();
  list.forEach(({ name }, i) => {
    const first = seen.get(name);
    if (first === undefined) {
      seen.set(name, i);
      return;
    }
    throw new ConfigError(
      `error loading config file "${file}": error converting ${conversion}: duplicate name "${name}" in list`,
      {
        file,
        detail: `${key}[${first}] and ${key}[${i}] are both named "${name}"`,
        hint: `give every entry of ${key} its own name: kubectl refuses the whole file, whichever user it is asked for`,
      },
    );
  });
}

function namedList(root: Obj, key: string, bodyKey: string, file: string): Array<{ name: string; body: Obj }> {
  const v = root[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ConfigError(`${file}: ${key} must be a list`, { file });
  return v.map((item, i) => {
    if (!isObj(item) || typeof item.name !== 'string')
      throw new ConfigError(`${file}: ${key}[${i}] needs a name`, { file });
    const body = item[bodyKey];
    return { name: item.name, body: isObj(body) ? body : {} };
  });
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
