// Can kind run here? Three things, all reported at once so one doctor run
// says everything that is missing, and each says which case it found:
// - the kind CLI: on PATH, in credprov's cache, or buildable (Go);
// - a Docker engine: one that answers, or credprov's own (dockerd installed,
//   root), with or without the runc wrapper this host's capability bounding
//   set calls for;
// - the node image: the one the spec names must be present (kind would pull
//   it otherwise); credprov's own is present or buildable offline (mmdebstrap).
import { delimiter } from 'node:path';
import { findDockerd, findExecutable } from '../../engine/dockerd.ts';
import type { Availability } from '../provider.ts';
import { boundingSetHasSysResource, resolveEngine, type Engine } from './engine.ts';
import { nodeImageFor, publishedImageFor } from './images.ts';
import type { Runner } from './tools.ts';

export interface KindProbe {
  kind: { ok: boolean; version?: string; detail: string };
  docker: { ok: boolean; version?: string; detail: string };
  image: { ok: boolean; name: string; detail: string };
}

export interface ProbeOptions {
  imageOverride?: string;
  env?: NodeJS.ProcessEnv;
  /** Test seams. */
  engine?: Engine | null;
  capSysResource?: boolean;
  dockerdPresent?: boolean;
}

export async function probeKind(run: Runner, kubeVersion: string, o: ProbeOptions = {}): Promise<KindProbe> {
  const env = o.env ?? process.env;
  const image = nodeImageFor(kubeVersion, o.imageOverride);
  const k = await run('kind', ['version']);
  const go = await onPath('go', env);
  const kind =
    k.exitCode === 0
      ? { ok: true, version: /v\d+\.\d+\.\d+/.exec(k.stdout)?.[0] ?? k.stdout.trim(), detail: k.stdout.trim() }
      : k.missing && go
        ? { ok: true, detail: 'not built yet: credprov builds kind v0.33.0 from the Go module proxy on first use' }
        : {
            ok: false,
            detail: k.missing
              ? 'kind is neither on PATH nor built by credprov, and Go is missing'
              : `kind version failed: ${firstLine(k.stderr)}`,
          };
  const engine = o.engine === undefined ? await resolveEngine({ env }) : (o.engine ?? undefined);
  const capOk = o.capSysResource ?? (await boundingSetHasSysResource());
  const capNote = capOk
    ? ''
    : "; this host's capability bounding set lacks CAP_SYS_RESOURCE, so privileged nodes need credprov's own engine (a runc wrapper drops it)";
  let docker: KindProbe['docker'];
  if (engine) {
    docker =
      engine.kind === 'system' && !capOk
        ? { ok: false, version: engine.version, detail: `Docker engine ${engine.version} at ${engine.host}${capNote}` }
        : {
            ok: true,
            version: engine.version,
            detail: `Docker engine ${engine.version} (${engine.kind === 'own' ? "credprov's own" : engine.host})${capNote}`,
          };
  } else if ((o.dockerdPresent ?? (await findDockerd(env)) !== undefined) && process.getuid?.() === 0) {
    docker = { ok: true, detail: `no engine answers: credprov starts its own dockerd on first use${capNote}` };
  } else {
    docker = { ok: false, detail: 'no Docker engine answers, and dockerd is not installed (or this is not root)' };
  }
  let img: KindProbe['image'];
  const present = engine
    ? (
        await run('docker', ['--host', engine.host, 'image', 'inspect', '--format', '{{.Id}}', image], {
          timeoutMs: 15_000,
        })
      ).exitCode === 0
    : false;
  if (present) img = { ok: true, name: image, detail: `${image} present` };
  else if (o.imageOverride)
    img = {
      ok: false,
      name: image,
      detail: engine ? `${image} is not present locally` : `${image}: cannot check without a Docker engine`,
    };
  else if (await onPath('mmdebstrap', env))
    img = {
      ok: true,
      name: image,
      detail: engine
        ? `${image} not built yet: credprov builds it offline on first use (mmdebstrap, Go module proxy)`
        : `${image} not checked (no engine runs yet): credprov builds it offline when it is missing (mmdebstrap, Go module proxy)`,
    };
  else img = { ok: false, name: image, detail: `${image} is not built, and mmdebstrap is missing to build it` };
  return { kind, docker, image: img };
}

async function onPath(bin: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return (await findExecutable(bin, (env.PATH ?? '').split(delimiter))) !== undefined;
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
  if (!p.docker.ok)
    hints.push(
      'install docker.io (scripts/setup.sh --kind) and let credprov start its own engine, or point DOCKER_HOST at one',
    );
  if (!p.image.ok) {
    const published = publishedImageFor(kubeVersion);
    hints.push(
      `load ${p.image.name} (docker load), or drop --node-image to use credprov's own (apt-get install mmdebstrap)` +
        (published && published !== p.image.name ? `; kind v0.33.0 publishes ${published}` : ''),
    );
  }
  return hints;
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}
