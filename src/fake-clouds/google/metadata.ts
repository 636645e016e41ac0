// The GCE metadata server (http://metadata.google.internal/computeMetadata/v1/),
// as the real one answers a VM's processes. From Google's documentation
// ("About VM metadata", "Query VM metadata", "Authenticate workloads using
// service accounts"):
// - only GET; the request must carry `Metadata-Flavor: Google`, else 403 (its
//   HTML page says "Missing Metadata-Flavor:Google header.");
// - a request with an X-Forwarded-For header is refused (403): it was proxied;
// - every answer carries `Metadata-Flavor: Google`; an unknown key is a 404;
// - …/service-accounts/default/token answers {access_token, expires_in,
//   token_type: "Bearer"} as JSON; the server caches the token and answers it again
//   (expires_in counting down) until 5 minutes before it expires, then mints a new one;
// - …/service-accounts/default/email answers the account's email as text;
// - …/instance/attributes/<key> answers a custom metadata value as text (GKE's
//   google-dockercfg and google-dockercfg-url are such keys).
import { jsonReply, Refusal, type CloudRequest, type Endpoint, type IssuedTokens, type Reply } from '../kit/index.ts';
import { tokenFingerprint } from '../../authn/token-book.ts';

export const METADATA_PREFIX = '/computeMetadata/v1/';
const SA_PREFIX = `${METADATA_PREFIX}instance/service-accounts/`;
const ATTRIBUTE_PREFIX = `${METADATA_PREFIX}instance/attributes/`;
const FLAVOR = { 'metadata-flavor': 'Google' } as const;

/** What the metadata server keeps of each request (never a token: its fingerprint). */
export interface MetadataRecord {
  seq: number;
  time: string;
  method: string;
  path: string;
  /** The Host header as sent (the plugin writes metadata.google.internal. with its trailing dot). */
  host: string;
  userAgent?: string;
  /** Whether it carried Metadata-Flavor: Google. */
  flavor: boolean;
  forwardedFor?: boolean;
  /** What was answered: a token (its fingerprint and the expires_in sent), the email, an attribute. */
  served?: 'token' | 'email' | 'attribute';
  token?: { fingerprint: string; expiresIn: number; fresh: boolean };
  attribute?: string;
  status: number;
  error?: string;
}

/** An access token the metadata server minted: for which account, until when. */
export interface MetadataGrant {
  email: string;
  expiresAt: number;
}

export interface MetadataServerOptions {
  /** The default service account's email. */
  email: string;
  /** Where access tokens are minted, and later recognised (by the registry login rule). */
  tokens: IssuedTokens<MetadataGrant>;
  /** A new token's life (Google's are an hour: 3600 s). */
  tokenLifetimeS: number;
  /** The cached token is answered until this long before it expires (Google: 300 s). */
  refreshBeforeS: number;
  /** Custom instance metadata (attributes/<key>): absent keys are 404. */
  attributes(): Record<string, string>;
  /** While true, every request gets a 503 (a metadata server that is down or overloaded). */
  unavailable(): boolean;
  now: () => number;
}

/** Google's 403/404 pages are HTML; the record keeps the one-line reason. */
const page = (r: Refusal): Reply => ({
  status: r.status,
  headers: { ...FLAVOR, 'content-type': 'text/html; charset=UTF-8' },
  body: `<!DOCTYPE html>\n<html lang=en>\n<title>Error ${r.status} (${r.code})</title>\n<p>${r.message}</p>\n`,
});

export function metadataEndpoint(o: MetadataServerOptions): Endpoint<MetadataRecord> {
  let cached: { token: string; expiresAt: number } | undefined;
  const token = (note: (f: Partial<MetadataRecord>) => void): Reply => {
    const now = o.now();
    const fresh = !cached || cached.expiresAt - now <= o.refreshBeforeS * 1000;
    if (fresh) {
      const expiresAt = now + o.tokenLifetimeS * 1000;
      cached = { token: o.tokens.issue({ email: o.email, expiresAt }), expiresAt };
    }
    const expiresIn = Math.max(0, Math.floor((cached!.expiresAt - now) / 1000));
    note({ served: 'token', token: { fingerprint: tokenFingerprint(cached!.token), expiresIn, fresh } });
    return jsonReply(200, { access_token: cached!.token, expires_in: expiresIn, token_type: 'Bearer' }, FLAVOR);
  };
  return {
    refuse: page,
    record: (req: CloudRequest) => ({
      host: req.header('host') ?? '',
      flavor: req.header('metadata-flavor') === 'Google',
      ...(req.header('x-forwarded-for') !== undefined ? { forwardedFor: true } : {}),
    }),
    answer(req, note) {
      if (o.unavailable()) throw new Refusal(503, 'Service Unavailable', 'The metadata server is unavailable.');
      if (req.method !== 'GET') throw new Refusal(405, 'Method Not Allowed', `${req.method} is not supported.`);
      if (req.header('x-forwarded-for') !== undefined)
        throw new Refusal(403, 'Forbidden', 'Request had an X-Forwarded-For header and was rejected.');
      if (req.header('metadata-flavor') !== 'Google')
        throw new Refusal(
          403,
          'Forbidden',
          `Your client does not have permission to get URL ${req.url.pathname} from this server. Missing Metadata-Flavor:Google header.`,
        );
      const path = req.url.pathname;
      if (path === `${SA_PREFIX}default/token`) return token(note);
      if (path === `${SA_PREFIX}default/email`) {
        note({ served: 'email' });
        return { status: 200, headers: { ...FLAVOR, 'content-type': 'application/text' }, body: o.email };
      }
      if (path.startsWith(ATTRIBUTE_PREFIX)) {
        const key = path.slice(ATTRIBUTE_PREFIX.length);
        const value = o.attributes()[key];
        note({ attribute: key });
        if (value !== undefined) {
          note({ served: 'attribute' });
          return { status: 200, headers: { ...FLAVOR, 'content-type': 'application/text' }, body: value };
        }
      }
      throw new Refusal(404, 'Not Found', `The requested URL ${path} was not found on this server.`);
    },
  };
}
