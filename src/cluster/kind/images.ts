// Node images for kind. kind publishes kindest/node per Kubernetes release and
// pins them by digest in its release notes; a tag may point to a build for
// another kind release, so a digest the user gives wins over the tag.
// We ask for the exact version the spec names; kind v0.33.0's defaults show
// which patch each minor was published at (reference: ecosystem-and-tooling §C.1).

/** The kindest/node patch kind v0.33.0 published per minor: what to suggest when the exact image is missing. */
export const PUBLISHED_NODE_IMAGES: Record<number, string> = {
  37: 'kindest/node:v1.37.0',
  36: 'kindest/node:v1.36.4',
  35: 'kindest/node:v1.35.8',
  34: 'kindest/node:v1.34.11',
  33: 'kindest/node:v1.33.1',
};

/** credprov's own offline image (node-image/), unless the user names one (kindest/node:… on a runner with internet). */
export function nodeImageFor(kubeVersion: string, override?: string): string {
  return override ?? `credprov/kind-node:${kubeVersion}`;
}

export function publishedImageFor(kubeVersion: string): string | undefined {
  const m = /^v?1\.(\d+)/.exec(kubeVersion);
  return m ? PUBLISHED_NODE_IMAGES[Number(m[1])] : undefined;
}
