// Version stamping, as hack/lib/version.sh does for a release build: the same
// variables in k8s.io/component-base/version (kubelet --version, the node's
// kubeletVersion, /version of the API server) and k8s.io/client-go/pkg/version
// (kubectl's client version). Without them binaries say v0.0.0-master.
import { ConfigError } from '../../core/errors.ts';

const VERSION_PACKAGES = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'];

export interface StampOptions {
  /** Exact release, v1.37.1. */
  version: string;
  /** ISO time without fractions; release builds use the commit time, we use the tag's module time for reproducibility. */
  buildDate: string;
  /** The module proxy does not tell the git commit; empty reads better than "$Format:%H$". */
  gitCommit?: string;
}

export function versionVars(o: StampOptions): Record<string, string> {
  const m = /^v(\d+)\.(\d+)\.(\d+)(-(?:alpha|beta|rc)\.\d+)?$/.exec(o.version);
  if (!m)
    throw new ConfigError(
      `cannot stamp '${o.version}': expected an exact release vX.Y.Z or a pre-release vX.Y.Z-alpha.N`,
    );
  return {
    gitVersion: o.version,
    gitMajor: m[1]!,
    // version.sh: a version with a pre-release part has minor "38+".
    gitMinor: m[4] ? `${m[2]!}+` : m[2]!,
    gitCommit: o.gitCommit ?? '',
    // "archive" is what version.sh reports for a tree exported without git, which is what a module zip is.
    gitTreeState: 'archive',
    buildDate: o.buildDate.replace(/\.\d+Z$/, 'Z'),
  };
}

/** One -ldflags value (go build takes it as a single argument; execa passes it without a shell). */
export function kubeLdflags(o: StampOptions): string {
  const vars = versionVars(o);
  const parts = ['-s', '-w'];
  for (const [key, value] of Object.entries(vars)) {
    for (const pkg of VERSION_PACKAGES) parts.push(`-X '${pkg}.${key}=${value}'`);
  }
  return parts.join(' ');
}
