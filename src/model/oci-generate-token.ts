// credprov's model of `oci ce cluster generate-token` (oci-cli 3.95.1,
// services/container_engine/src/oci_cli_container_engine/containerengine_cli_extended.py:30-90)
// and of how the API-server side can validate what it prints. Confirmed on the
// real oci-cli (2026-11-29; a real answer is testdata/oci-generate-token.json).
//
// What the plugin does:
// - No network call with API-key auth: the SDK's signer signs, locally, a GET of
//   https://containerengine.<region>.oraclecloud.com/cluster_request/<cluster id>
//   (region from the profile; the host is hard-coded, :47) with OCI's request
//   signature (draft-cavage HTTP signatures, version 1: rsa-sha256 over
//   "date", "(request-target)", "host", keyId "<tenancy>/<user>/<key fingerprint>").
//   Instance principals would first fetch a certificate from the instance
//   metadata service and federate; that mode needs a cloud.
// - The token is base64url (with padding) of that URL plus the query
//   ?authorization=<the Authorization header>&date=<the Date header> (form-encoded),
//   and opc-obo-token for a delegation-token signer (:62-63).
// - It prints a client.authentication.k8s.io/v1beta1 ExecCredential whatever
//   KUBERNETES_EXEC_INFO asks (a literal template, :80-88), with
//   expirationTimestamp = utcnow + 4 min in isoformat with microseconds and "Z"
//   (:78), surrounded by a newline and trailing spaces; no cache, a fresh
//   signature per run; a Python start of seconds per run.
//
// What the validating side (OKE's authenticator; a fake cloud's webhook) must
// check, from OCI's request-signing rules: the URL's host is the cluster's
// region endpoint and its path is /cluster_request/<that cluster>; the
// signature is rsa-sha256 with the public key registered for keyId over the
// signing string built from the listed headers in their order; the date is
// within 5 minutes of now (OCI refuses a signed request whose Date is further
// off). How OKE maps the key to a Kubernetes user is OCI's (the user's OCID);
// that and OKE's own window are UNCONFIRMED here.
import {
  OCI_GET_SIGNED_HEADERS,
  OCI_SIGNATURE_SKEW_MS,
  parseSignatureHeader,
  signatureVerifies,
  signingString,
  type OciSignature,
} from '../api/oci/request-signature.ts';

export { OCI_SIGNATURE_SKEW_MS, parseSignatureHeader, signingString, type OciSignature };
export const OCI_EXEC_API_VERSION = 'client.authentication.k8s.io/v1beta1';
/** The expiry the plugin claims (:78): the client refreshes before the signature's window closes. */
export const OCI_TOKEN_CLAIMED_LIFETIME_MS = 4 * 60_000;
export const OCI_SIGNED_HEADERS = OCI_GET_SIGNED_HEADERS;

export function clusterRequestUrl(region: string, clusterId: string): string {
  return `https://containerengine.${region}.oraclecloud.com/cluster_request/${clusterId}`;
}

export interface OciTokenParts {
  url: string;
  host: string;
  region?: string;
  path: string;
  clusterId?: string;
  authorization: OciSignature;
  date: string;
  oboToken?: string;
}

/** What a token says (signature included: it is not a secret once verified, but reports show describe()). */
export function parseOciToken(token: string): OciTokenParts | { malformed: string } {
  let url: URL;
  try {
    url = new URL(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return { malformed: 'not base64url of a URL' };
  }
  const authorization = url.searchParams.get('authorization');
  const date = url.searchParams.get('date');
  if (!authorization || !date) return { malformed: 'the URL has no authorization or date parameter' };
  const sig = parseSignatureHeader(authorization);
  if (!sig) return { malformed: 'the authorization parameter is not an OCI Signature header' };
  const region = /^containerengine\.([a-z0-9-]+)\.oraclecloud\.com$/.exec(url.host)?.[1];
  const clusterId = /^\/cluster_request\/([^/]+)$/.exec(url.pathname)?.[1];
  const obo = url.searchParams.get('opc-obo-token');
  return {
    url: `${url.origin}${url.pathname}`,
    host: url.host,
    ...(region ? { region } : {}),
    path: url.pathname,
    ...(clusterId ? { clusterId } : {}),
    authorization: sig,
    date,
    ...(obo ? { oboToken: obo } : {}),
  };
}

export interface OciValidation {
  clusterId: string;
  region: string;
  now: number;
  /** keyId → public key PEM: the API keys the fake cloud knows. */
  keys: ReadonlyMap<string, string>;
}

export type OciVerdict = { ok: true; keyId: string; user: string } | { ok: false; reason: string };

/** What the validating side answers for a token: each rule in the order a refusal names it. */
export function validateOciToken(token: string, v: OciValidation): OciVerdict {
  const t = parseOciToken(token);
  if ('malformed' in t) return { ok: false, reason: t.malformed };
  if (t.region !== v.region)
    return { ok: false, reason: `host ${t.host} is not containerengine.${v.region}.oraclecloud.com` };
  if (t.clusterId !== v.clusterId) return { ok: false, reason: `the token is for ${t.path}, not this cluster` };
  const sig = t.authorization;
  if (sig.version !== '1' || sig.algorithm !== 'rsa-sha256')
    return { ok: false, reason: `signature version ${sig.version} / algorithm ${sig.algorithm} is not 1 / rsa-sha256` };
  for (const h of OCI_SIGNED_HEADERS)
    if (!sig.headers.includes(h)) return { ok: false, reason: `the signature does not cover ${h}` };
  const pem = v.keys.get(sig.keyId);
  if (!pem) return { ok: false, reason: `unknown keyId ${sig.keyId}` };
  const date = Date.parse(t.date);
  if (Number.isNaN(date)) return { ok: false, reason: `date ${JSON.stringify(t.date)} is not an HTTP date` };
  if (Math.abs(v.now - date) > OCI_SIGNATURE_SKEW_MS)
    return { ok: false, reason: `date ${t.date} is more than 5 minutes from now` };
  const input = signingString(sig.headers, { path: t.path, host: t.host, date: t.date });
  if (!signatureVerifies(input, sig.signature, pem))
    return { ok: false, reason: `the signature does not verify with ${sig.keyId}'s key` };
  return { ok: true, keyId: sig.keyId, user: sig.keyId.split('/')[1] ?? sig.keyId };
}

export interface OciExecPrediction {
  apiVersion: typeof OCI_EXEC_API_VERSION;
  /** The claimed expiry, from the run's start (the plugin stamps it after signing). */
  expiresAfterMs: number;
  /** A v1 kubeconfig user gets a v1beta1 answer: client-go and kubectl refuse it. */
  followsExecInfo: false;
  /** Every run signs anew; rsa-sha256 (PKCS#1 v1.5) over a Date of whole seconds is deterministic, so two runs in one second print the same token. */
  cachesToken: false;
}

export function predictGenerateToken(): OciExecPrediction {
  return {
    apiVersion: OCI_EXEC_API_VERSION,
    expiresAfterMs: OCI_TOKEN_CLAIMED_LIFETIME_MS,
    followsExecInfo: false,
    cachesToken: false,
  };
}
