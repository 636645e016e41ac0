// Validation of a kubeconfig exec stanza with kubectl's own messages
// (client-go tools/clientcmd/validation.go validateAuthInfo), plus clientcmd's
// defaulting (v1/defaults.go SetDefaults_ExecConfig) and the transport-time
// apiVersion check (exec.go: `exec plugin: invalid apiVersion "…"`).
// kubectl silently drops unknown fields; we keep its verdicts and add
// warnings for typos so `interactivemode:` does not cost anyone an afternoon.
import { closest } from '../../core/closest.ts';
import {
  INTERACTIVE_MODES,
  V1ALPHA1,
  V1BETA1,
  isSupportedExecApiVersion,
  type ExecConfig,
  type ExecEnvVar,
  type InteractiveMode,
} from './types.ts';

export interface ExecProblem {
  /** Path inside the kubeconfig: users[0].user.exec.interactiveMode. */
  field: string;
  /** In kubectl's words where kubectl has words for it. */
  message: string;
  severity: 'error' | 'warning';
  /** What to change, when there is a one-line answer. */
  hint?: string;
}

const KNOWN_FIELDS = ['command', 'args', 'env', 'apiVersion', 'installHint', 'provideClusterInfo', 'interactiveMode'];

export interface ExecValidation {
  /** Present when there are no errors: the stanza after clientcmd's defaulting. */
  config?: ExecConfig;
  problems: ExecProblem[];
}

/**
 * Validates `raw` (the value of users[i].user.exec) for user `user`.
 * `at` is the field path prefix used in problems.
 */
export function validateExecConfig(
  raw: unknown,
  user: string,
  at = 'exec',
  siblings: Record<string, unknown> = {},
): ExecValidation {
  const problems: ExecProblem[] = [];
  const err = (field: string, message: string, hint?: string) =>
    problems.push({ field: `${at}${field}`, message, severity: 'error', ...(hint ? { hint } : {}) });
  const warn = (field: string, message: string, hint?: string) =>
    problems.push({ field: `${at}${field}`, message, severity: 'warning', ...(hint ? { hint } : {}) });

  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    err(
      '',
      `exec for ${user} must be a mapping with command and apiVersion`,
      'write it as exec: {apiVersion: client.authentication.k8s.io/v1, command: my-plugin, interactiveMode: Never}',
    );
    return { problems };
  }
  const o = raw as Record<string, unknown>;

  for (const key of Object.keys(o)) {
    if (KNOWN_FIELDS.includes(key)) continue;
    const near = closest(key, KNOWN_FIELDS);
    warn(`.${key}`, `unknown field "${key}" is ignored by kubectl`, near ? `did you mean ${near}?` : undefined);
  }
  if (siblings.authProvider !== undefined && siblings.authProvider !== null) {
    err(
      '',
      `authProvider cannot be provided in combination with an exec plugin for ${user}`,
      'remove auth-provider from this user; exec replaces it',
    );
  }

  const command = stringField(o, 'command', at, problems);
  if (command === undefined)
    err(
      '.command',
      `command must be specified for ${user} to use exec authentication plugin`,
      'set exec.command to the plugin executable (a bare name is looked up on PATH; a path is relative to the kubeconfig)',
    );

  const apiVersion = stringField(o, 'apiVersion', at, problems);
  if (apiVersion === undefined) {
    err(
      '.apiVersion',
      `apiVersion must be specified for ${user} to use exec authentication plugin`,
      'set exec.apiVersion: client.authentication.k8s.io/v1',
    );
  } else if (apiVersion === null) {
    // reported by stringField
  } else if (apiVersion === V1ALPHA1) {
    err(
      '.apiVersion',
      `exec plugin: invalid apiVersion "${apiVersion}"`,
      'client.authentication.k8s.io/v1alpha1 was removed in Kubernetes 1.24; use client.authentication.k8s.io/v1 (or v1beta1) and a plugin that speaks it',
    );
  } else if (!isSupportedExecApiVersion(apiVersion)) {
    err(
      '.apiVersion',
      `exec plugin: invalid apiVersion "${apiVersion}"`,
      'use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1',
    );
  }

  const args: string[] = [];
  if (o.args !== undefined && o.args !== null) {
    if (!Array.isArray(o.args)) err('.args', `args for ${user} must be a list of strings`);
    else
      o.args.forEach((a, i) => {
        if (typeof a === 'string') args.push(a);
        else if (typeof a === 'number' || typeof a === 'boolean') {
          // YAML turns `- 8080` into a number; kubectl would reject the file, so say so.
          err(`.args[${i}]`, `args[${i}] for ${user} must be a string, got ${typeof a}`, `quote it: - "${String(a)}"`);
        } else err(`.args[${i}]`, `args[${i}] for ${user} must be a string`);
      });
  }

  const env: ExecEnvVar[] = [];
  if (o.env !== undefined && o.env !== null) {
    if (!Array.isArray(o.env)) err('.env', `env for ${user} must be a list of {name, value}`);
    else
      o.env.forEach((e, i) => {
        const entry = (e && typeof e === 'object' ? e : {}) as Record<string, unknown>;
        const name = typeof entry.name === 'string' ? entry.name : '';
        if (!name)
          err(`.env[${i}].name`, `env variable name must be specified for ${user} to use exec authentication plugin`);
        let value = '';
        if (entry.value === undefined || entry.value === null) {
          warn(
            `.env[${i}].value`,
            `env variable ${name || `#${i}`} has no value for ${user}; the plugin gets an empty string`,
            'add value: (quote numbers and booleans)',
          );
        } else if (typeof entry.value !== 'string') {
          err(
            `.env[${i}].value`,
            `env variable ${name || `#${i}`} value for ${user} must be a string, got ${typeof entry.value}`,
            `quote it: value: "${String(entry.value)}"`,
          );
        } else value = entry.value;
        if (name) env.push({ name, value });
      });
  }

  let interactiveMode = stringField(o, 'interactiveMode', at, problems);
  // clientcmd defaults the mode for the pre-v1 versions only; v1 made it explicit on purpose.
  if (interactiveMode === undefined && (apiVersion === V1BETA1 || apiVersion === V1ALPHA1))
    interactiveMode = 'IfAvailable';
  if (interactiveMode === undefined) {
    err(
      '.interactiveMode',
      `interactiveMode must be specified for ${user} to use exec authentication plugin`,
      'add interactiveMode: Never (or IfAvailable, Always) to the exec stanza; client.authentication.k8s.io/v1 has no default',
    );
  } else if (interactiveMode !== null && !(INTERACTIVE_MODES as readonly string[]).includes(interactiveMode)) {
    const near = closest(interactiveMode, [...INTERACTIVE_MODES]);
    err(
      '.interactiveMode',
      `invalid interactiveMode for ${user}: "${interactiveMode}"`,
      `use one of ${INTERACTIVE_MODES.join(', ')}${near ? ` (did you mean ${near}?)` : ''}`,
    );
  }

  let provideClusterInfo = false;
  if (o.provideClusterInfo !== undefined && o.provideClusterInfo !== null) {
    if (typeof o.provideClusterInfo !== 'boolean')
      err('.provideClusterInfo', `provideClusterInfo for ${user} must be true or false`);
    else provideClusterInfo = o.provideClusterInfo;
  }
  const installHint = typeof o.installHint === 'string' ? o.installHint : undefined;
  if (o.installHint !== undefined && o.installHint !== null && typeof o.installHint !== 'string')
    err('.installHint', `installHint for ${user} must be a string`);

  if (problems.some((p) => p.severity === 'error')) return { problems };
  return {
    problems,
    config: {
      command: command!,
      args,
      env,
      apiVersion: apiVersion!,
      provideClusterInfo,
      interactiveMode: interactiveMode as InteractiveMode,
      ...(installHint !== undefined ? { installHint } : {}),
    },
  };
}

/** The string value; undefined when absent; null when present but not a string (already reported). */
function stringField(
  o: Record<string, unknown>,
  key: string,
  at: string,
  problems: ExecProblem[],
): string | undefined | null {
  const v = o[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return v;
  problems.push({
    field: `${at}.${key}`,
    message: `${key} must be a string, got ${typeof v}`,
    severity: 'error',
    hint: `quote it: ${key}: "${String(v)}"`,
  });
  return null;
}
