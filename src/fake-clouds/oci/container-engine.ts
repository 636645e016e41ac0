// OCI Container Engine's cluster_request, as OKE's authenticator has it
// answered for a token `oci ce cluster generate-token` made: a GET of
// /cluster_request/<cluster id> on containerengine.<region>.oraclecloud.com,
// signed with the caller's API key. The checks are OCI's for any signed request
// (docs "Request Signatures"): an Authorization header in the Signature scheme,
// version 1, rsa-sha256, covering date, (request-target) and host; a keyId
// <tenancy>/<user>/<fingerprint> naming an API key the tenancy has; a Date within
// 5 minutes of the cloud's clock; the signature verifying with that key. Any
// failure is 401 NotAuthenticated. Then the cluster must exist in the region
// (404 NotAuthorizedOrNotFound). What the real service answers on success is
// OKE's own (UNCONFIRMED): the fake answers who signed it.
import { jsonReply, Refusal, type CloudRequest, type Endpoint, type Reply } from '../kit/index.ts';
import {
  OCI_GET_SIGNED_HEADERS,
  OCI_SIGNATURE_SKEW_MS,
  parseSignatureHeader,
  signatureVerifies,
  signingString,
} from '../../api/oci/request-signature.ts';
import type { OciRecord } from './records.ts';

/** An API key a user of the tenancy uploaded. */
export interface OciApiKey {
  tenancy: string;
  user: string;
  fingerprint: string;
  publicKeyPem: string;
}

/** OCI's error body: {code, message}, and an opc-request-id on every answer. */
export const ociRefusal = (r: Refusal): Reply =>
  jsonReply(r.status, { code: r.code, message: r.message }, { 'opc-request-id': requestId() });

const requestId = () => Math.random().toString(16).slice(2, 18).toUpperCase();
const notAuthenticated = (why: string) => new Refusal(401, 'NotAuthenticated', why);

export function clusterRequestEndpoint(o: {
  region: string;
  clusters: () => readonly string[];
  keys: () => readonly OciApiKey[];
  now: () => number;
}): Endpoint<OciRecord> {
  const host = `containerengine.${o.region}.oraclecloud.com`;
  return {
    refuse: ociRefusal,
    record: (req: CloudRequest) => ({ host: req.host }),
    answer(req, note) {
      const m = /^\/cluster_request\/([^/]+)$/.exec(req.url.pathname);
      if (req.host !== host || !m)
        throw new Refusal(404, 'NotAuthorizedOrNotFound', `no such endpoint ${req.host}${req.url.pathname}`);
      const cluster = m[1]!;
      note({ cluster });
      if (req.method !== 'GET') throw new Refusal(405, 'MethodNotAllowed', `${req.method} is not allowed`);
      const auth = req.header('authorization');
      if (!auth) throw notAuthenticated('The required information to complete authentication was not provided.');
      const sig = parseSignatureHeader(auth);
      if (!sig) throw notAuthenticated('The Authorization header is not an OCI Signature.');
      note({ keyId: sig.keyId, signedHeaders: sig.headers });
      if (sig.version !== '1' || sig.algorithm !== 'rsa-sha256')
        throw notAuthenticated(`Unsupported signature version ${sig.version} or algorithm ${sig.algorithm}.`);
      const missing = OCI_GET_SIGNED_HEADERS.filter((h) => !sig.headers.includes(h));
      if (missing.length > 0) throw notAuthenticated(`The signature must cover ${missing.join(', ')}.`);
      const [tenancy, user, fingerprint] = sig.keyId.split('/');
      const key = o.keys().find((k) => k.tenancy === tenancy && k.user === user && k.fingerprint === fingerprint);
      if (!key) throw notAuthenticated(`No API key ${sig.keyId} is known to the tenancy.`);
      note({ user: key.user });
      const dateText = req.header('date') ?? '';
      const date = Date.parse(dateText);
      if (Number.isNaN(date)) throw notAuthenticated(`Date header ${JSON.stringify(dateText)} is not an HTTP date.`);
      const skew = Math.round((o.now() - date) / 1000);
      note({ dateSkewS: skew });
      if (Math.abs(o.now() - date) > OCI_SIGNATURE_SKEW_MS)
        throw notAuthenticated(`The Date header ${dateText} is more than 5 minutes from the service's clock.`);
      const input = signingString(sig.headers, {
        method: req.method,
        path: req.target.split('?')[0]!,
        host: req.host,
        date: dateText,
      });
      if (!signatureVerifies(input, sig.signature, key.publicKeyPem))
        throw notAuthenticated(`The signature does not verify with API key ${sig.keyId}.`);
      if (!o.clusters().includes(cluster))
        throw new Refusal(
          404,
          'NotAuthorizedOrNotFound',
          `Authorization failed or requested resource not found: ${cluster}.`,
        );
      return jsonReply(200, { cluster, userId: key.user, tenancyId: key.tenancy }, { 'opc-request-id': requestId() });
    },
  };
}
