// credprov validate-config: would a kubelet of version V start with this
// --image-credential-provider-config (file, or directory from 1.34)?
import { loadProviderConfig, providerConfigWarnings } from '../api/credentialprovider/config.ts';
import { ConfigError, InputFileError, UsageError } from '../core/errors.ts';
import { behaviourFor, NEWEST_MINOR, parseKubeVersion } from '../versions/table.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';
import { printError } from './output.ts';

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** --feature-gates K=V,K2=V2 as the kubelet reads it (values per Go's strconv.ParseBool). */
export function parseFeatureGates(command: string, text: string | undefined): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  if (text === undefined || text.trim() === '') return gates;
  for (const item of text.split(',')) {
    const entry = item.trim();
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    const name = eq < 0 ? entry : entry.slice(0, eq).trim();
    const value = eq < 0 ? '' : entry.slice(eq + 1).trim();
    if (eq < 0 || name === '' || !(TRUE.has(value) || FALSE.has(value))) {
      throw new UsageError(`${command}: --feature-gates: ${JSON.stringify(entry)} is not Name=true or Name=false`, {
        hint: 'write it as the kubelet flag takes it, e.g. --feature-gates KubeletServiceAccountTokenForCredentialProviders=false',
      });
    }
    gates[name] = TRUE.has(value);
  }
  return gates;
}

interface Flags {
  'kube-version'?: string;
  'feature-gates'?: string;
}

export const command: Command = {
  path: ['validate-config'],
  summary: 'would a kubelet of version V accept this CredentialProviderConfig?',
  usage: `Usage: credprov validate-config FILE|DIR [--kube-version V] [--feature-gates K=V,...] [--json]

Checks a CredentialProviderConfig the way the kubelet does at startup: strict
decoding (unknown or repeated fields, wrong YAML types such as an unquoted
0 for a duration), then every rule of its validation for that version
(names, apiVersion, matchImages, defaultCacheDuration, tokenAttributes with
the KubeletServiceAccountTokenForCredentialProviders gate, cacheType from
1.34). From 1.34 the argument may be a directory: its *.json, *.yaml and
*.yml files are merged in lexical order, as the kubelet does.

  --kube-version V     kubelet version whose rules apply (default 1.${NEWEST_MINOR})
  --feature-gates K=V  kubelet feature gates, e.g.
                       KubeletServiceAccountTokenForCredentialProviders=true
  --json               print {file, kubeVersion, valid, problems} on stdout

Prints 'ok: …' and exits 0 when that kubelet would start (with a warning on
stderr for matchImages entries it accepts that can never match, such as
https://reg.io or reg.io/*); otherwise prints one
'field: message' line per problem (kubelet wording; field paths carry list
indexes, the kubelet prints providers.name) and exits 1. Exit 2: bad flags, or
a file that cannot be read as input (missing, not a regular file, over 8 MiB,
a YAML alias bomb).

Examples:
  credprov validate-config /etc/kubernetes/credential-providers.yaml
  credprov validate-config ./providers.d --kube-version 1.34
  credprov validate-config cfg.yaml --kube-version 1.33 \\
      --feature-gates KubeletServiceAccountTokenForCredentialProviders=true
`,
  async run(argv, ctx) {
    const { values, positionals } = parseFlags<Flags>(
      'validate-config',
      argv,
      { 'kube-version': { type: 'string' }, 'feature-gates': { type: 'string' } },
      { positionals: true },
    );
    if (positionals.length !== 1) {
      throw new UsageError(`validate-config: expected one FILE or DIR, got ${positionals.length}`, {
        hint: "run 'credprov validate-config --help'",
      });
    }
    const file = positionals[0]!;
    const version = parseKubeVersion(values['kube-version'] ?? `1.${NEWEST_MINOR}`);
    behaviourFor(version);
    const featureGates = parseFeatureGates('validate-config', values['feature-gates']);
    try {
      const cfg = await loadProviderConfig(file, { kubeVersion: version.text, featureGates });
      const warnings = providerConfigWarnings(cfg);
      if (ctx.json) {
        ctx.stdout(
          `${JSON.stringify({ file, kubeVersion: version.text, valid: true, providers: cfg.providers.map((p) => p.name), problems: [], warnings })}\n`,
        );
        return 0;
      }
      for (const w of warnings) ctx.log.warn(`${w.field}: ${w.message}`);
      ctx.stdout(
        `ok: ${file} is a valid CredentialProviderConfig for kubelet ${version.text} (${cfg.providers.length} provider${cfg.providers.length === 1 ? '' : 's'}: ${cfg.providers.map((p) => p.name).join(', ')})\n`,
      );
      return 0;
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      // Unreadable input is not a verdict about the config: exit 2, as for bad flags.
      const unreadable = e instanceof InputFileError;
      if (ctx.json) {
        // Unreadable input is an error, not a verdict: in words on stderr too, as main() does for every error.
        if (unreadable) printError(e, ctx.verbose, (s) => process.stderr.write(s));
        const exitCode = unreadable ? 2 : 1;
        ctx.stdout(
          `${JSON.stringify({ file, kubeVersion: version.text, valid: false, error: e.reason, problems: e.problems, exitCode })}\n`,
        );
        return exitCode;
      }
      if (unreadable) throw e;
      ctx.log.error(e.reason);
      for (const p of e.problems) ctx.stdout(`${p.field}: ${p.message}\n`);
      if (e.hint) ctx.log.info(`  hint: ${e.hint}`);
      return 1;
    }
  },
};
