// STS's own rules that both credprov's model of aws-iam-authenticator
// (src/model) and the fake STS (src/fake-clouds/aws/) follow: how
// long a presigned GetCallerIdentity is honoured, and which region an STS
// hostname names. The fake and the model import these; neither imports the other.

/** How long STS honours a presigned GetCallerIdentity after its X-Amz-Date (X-Amz-Expires notwithstanding). */
export const STS_PRESIGN_WINDOW_MS = 15 * 60_000;

/** The region an STS hostname names: sts.<region>.amazonaws.com[.cn], sts.amazonaws.com (global: us-east-1); undefined for an IP or another host. */
export function stsRegionOfHost(host: string): string | undefined {
  const name = host.replace(/:\d+$/, '');
  if (name === 'sts.amazonaws.com') return 'us-east-1';
  return /^sts(?:-fips)?\.([a-z0-9-]+)\.(?:amazonaws\.com(?:\.cn)?|api\.aws)$/.exec(name)?.[1];
}
