// Can kind run here? Three things, all reported at once so one doctor run
// says everything that is missing: the kind CLI, a reachable Docker engine,
// and the node image for the wanted version present locally (kind would try
// to pull it from Docker Hub otherwise, which CI sandboxes often cannot reach).
import type { Availability } from '../provider.ts';
import { nodeImageFor, publishedImageFor } from './images.ts';
import type { Runner } from './tools.ts';

export interface KindProbe {
  kind: { ok: boolean; version?: string; detail: string };
  docker: { ok: boolean; version?: string; detail: string };
  image: { ok: boolean; name: string; detail: string };
}

export async function probeKind(run: Runner, kubeVersion: string, imageOverride?: string): Promise<KindProbe> {
  const image = nodeImageFor(kubeVersion, imageOverride);
  const k = await run('kind', ['version']);
  const kind = k.missing
    ? { ok: false, detail: 'kind is neither on PATH nor built by credprov' }
    : k.exitCode === 0
      ? { ok: true, version: /v\d+\.\d+\.\d+/.exec(k.stdout)?.[0] ?? k.stdout.trim(), detail: k.stdout.trim() }
      : { ok: false, detail: `kind version failed: ${firstLine(k.stderr)}` };
  const d = await run('docker', ['version', '--format', '{{.Server.Version}}'], { timeoutMs: 15_000 });
  const docker = d.missing
    ? { ok: false, detail: 'the docker CLI is not on PATH' }
    : d.exitCode === 0 && d.stdout.trim()
      ? { ok: true, version: d.stdout.trim(), detail: `Docker engine ${d.stdout.trim()}` }
      : { ok: false, detail: `no Docker engine answers (${firstLine(d.stderr) || 'docker version failed'})` };
  let img: KindProbe['image'];
  if (!docker.ok) {
    img = { ok: false, name: image, detail: `${image}: cannot check without a Docker engine` };
  } else {
    const i = await run('docker', ['image', 'inspect', '--format', '{{.Id}}', image], { timeoutMs: 15_000 });
    img =
      i.exitCode === 0
        ? { ok: true, name: image, detail: `${image} present` }
        : { ok: false, name: image, detail: `${image} is not present locally` };
  }
  return { kind, docker, image: img };
}

export function availabilityOf(p: KindProbe): Availability {
  const missing = [p.kind, p.docker, p.image].filter((x) => !x.ok).map((x) => x.detail);
  return missing.length === 0 ? { ok: true } : { ok: false, reason: missing.join('; ') };
}

/** What to do about each missing piece. */
export function kindHints(p: KindProbe, kubeVersion: string): string[] {
  const hints: string[] = [];
  if (!p.kind.ok)
    hints.push('build kind v0.33.0 into the cache (credprov binaries ensure --for kind), or put a kind on PATH');
  if (!p.docker.ok) hints.push('start a Docker engine (dockerd) or point DOCKER_HOST at one');
  if (!p.image.ok) {
    const published = publishedImageFor(kubeVersion);
    hints.push(
      `load ${p.image.name} (docker load, or kind build node-image ${kubeVersion})` +
        (published && published !== p.image.name ? `; kind v0.33.0 publishes ${published}` : ''),
    );
  }
  return hints;
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}
