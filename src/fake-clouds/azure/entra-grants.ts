// The token endpoint's grants (POST /<tenant>/oauth2/v2.0/token), checked as
// Entra ID checks them, each refusal with its AADSTS code and OAuth error
// (Microsoft identity platform: "Error codes", "OAuth 2.0 client credentials
// flow", "OAuth 2.0 ROPC", "Workload identity federation"):
// - client_credentials with client_secret: a known app (AADSTS700016) whose
//   secret it is (AADSTS7000215);
// - client_credentials with a jwt-bearer client_assertion: a federated identity
//   credential of the app, the assertion verified against the trusted OIDC issuer
//   (signature AADSTS50027, expired AADSTS700024), subject (AADSTS700213) and
//   audience (AADSTS700212) matching one of the app's credentials;
// - password (ROPC): a public client app (AADSTS7000218 for a confidential one
//   without its secret), a known user (AADSTS50034) with that password (AADSTS50126);
// - the scope: <resource>/.default of a resource the tenant knows (AADSTS500011).
import { audiences, Refusal, type CloudRequest, type TrustedIssuer } from '../kit/index.ts';

export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** An app registration (and its service principal) in the tenant. */
export interface EntraApp {
  clientId: string;
  /** Its service principal's object id (what its tokens' oid and sub say). */
  objectId: string;
  /** Client secrets (a service principal logging in with a secret). */
  secrets?: string[];
  /** A public client: users sign in through it (ROPC), no secret. */
  publicClient?: boolean;
}

export interface EntraUser {
  username: string;
  password: string;
  objectId: string;
}

/** An app's federated identity credential: which tokens may stand for it. */
export interface FederatedCredential {
  tenantId: string;
  clientId: string;
  /** system:serviceaccount:<namespace>:<name> */
  subject: string;
  audience: string;
}

export interface Directory {
  tenantId?: string;
  apps: EntraApp[];
  users: EntraUser[];
  credentials: FederatedCredential[];
  /** The resources (APIs) tokens may be asked for; undefined: any. */
  resources?: string[];
}

/** Who a granted token is for. */
export interface Granted {
  grant: 'client_credentials' | 'password';
  clientAuth: 'secret' | 'assertion' | 'none';
  resource: string;
  clientId: string;
  objectId: string;
  username?: string;
  /** A federated assertion's subject and audience (for the record). */
  subject?: string;
  audience?: string[];
}

const aadsts = (status: number, error: string, code: number, text: string) =>
  new Refusal(status, error, `AADSTS${code}: ${text}`);

/** The grant's decision: who the token is for, or the refusal Entra ID gives. */
export async function decideGrant(
  req: CloudRequest,
  tenant: string,
  dir: Directory,
  issuer: TrustedIssuer,
): Promise<Granted> {
  const form = req.form();
  const clientId = form.get('client_id') ?? '';
  const grantType = form.get('grant_type') ?? '';
  const scopes = (form.get('scope') ?? '').split(' ').filter(Boolean);
  const scope = scopes.find((s) => s.endsWith('/.default'));
  const resource = scope?.slice(0, -'/.default'.length);
  if (!resource)
    throw aadsts(
      400,
      'invalid_scope',
      70011,
      'The provided value for scope is not valid: it must name <resource>/.default.',
    );
  if (dir.resources && !dir.resources.includes(resource))
    throw aadsts(
      400,
      'invalid_resource',
      500011,
      `The resource principal named ${resource} was not found in the tenant ${tenant}.`,
    );
  const app = dir.apps.find((a) => a.clientId === clientId);
  if (grantType === 'client_credentials') {
    if (form.get('client_assertion_type') === ASSERTION_TYPE)
      return assertionGrant(form.get('client_assertion') ?? '', { tenant, clientId, resource, app, dir, issuer });
    if (!app)
      throw aadsts(
        400,
        'unauthorized_client',
        700016,
        `Application with identifier '${clientId}' was not found in the directory '${tenant}'.`,
      );
    const secret = form.get('client_secret');
    if (secret === null)
      throw aadsts(
        401,
        'invalid_client',
        7000218,
        "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
      );
    if (!(app.secrets ?? []).includes(secret))
      throw aadsts(
        401,
        'invalid_client',
        7000215,
        'Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.',
      );
    return { grant: 'client_credentials', clientAuth: 'secret', resource, clientId, objectId: app.objectId };
  }
  if (grantType === 'password') {
    if (!app)
      throw aadsts(
        400,
        'unauthorized_client',
        700016,
        `Application with identifier '${clientId}' was not found in the directory '${tenant}'.`,
      );
    if (!app.publicClient && form.get('client_secret') === null)
      throw aadsts(
        401,
        'invalid_client',
        7000218,
        "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
      );
    const username = form.get('username') ?? '';
    const user = dir.users.find((u) => u.username.toLowerCase() === username.toLowerCase());
    if (!user)
      throw aadsts(
        400,
        'invalid_grant',
        50034,
        `The user account ${username} does not exist in the ${tenant} directory.`,
      );
    if (user.password !== (form.get('password') ?? ''))
      throw aadsts(400, 'invalid_grant', 50126, 'Error validating credentials due to invalid username or password.');
    return {
      grant: 'password',
      clientAuth: 'none',
      resource,
      clientId,
      objectId: user.objectId,
      username: user.username,
    };
  }
  throw aadsts(400, 'unsupported_grant_type', 70003, `The app requested an unsupported grant type '${grantType}'.`);
}

async function assertionGrant(
  assertion: string,
  c: {
    tenant: string;
    clientId: string;
    resource: string;
    app: EntraApp | undefined;
    dir: Directory;
    issuer: TrustedIssuer;
  },
): Promise<Granted> {
  const verdict = await c.issuer.verify(assertion);
  if (!verdict.ok) {
    if (verdict.failure === 'expired')
      throw aadsts(400, 'invalid_client', 700024, 'Client assertion is not within its valid time range.');
    if (verdict.failure === 'issuer' || verdict.failure === 'untrusted')
      throw aadsts(
        400,
        'invalid_client',
        700211,
        'No matching federated identity record found for presented assertion issuer.',
      );
    throw aadsts(
      401,
      'invalid_client',
      50027,
      `JWT token is invalid or malformed: ${verdict.error?.message ?? 'no detail'}.`,
    );
  }
  const subject = String(verdict.payload.sub);
  const audience = audiences(verdict.payload);
  const mine = c.dir.credentials.filter((f) => f.tenantId === c.tenant && f.clientId === c.clientId);
  if (mine.length === 0)
    throw aadsts(
      400,
      'unauthorized_client',
      700016,
      `Application with identifier '${c.clientId}' was not found in the directory '${c.tenant}'.`,
    );
  const bySubject = mine.filter((f) => f.subject === subject);
  if (bySubject.length === 0)
    throw aadsts(
      400,
      'invalid_client',
      700213,
      `No matching federated identity record found for presented assertion subject '${subject}'.`,
    );
  if (!bySubject.some((f) => audience.includes(f.audience)))
    throw aadsts(
      400,
      'invalid_client',
      700212,
      `No matching federated identity record found for presented assertion audience '${audience.join(',')}'.`,
    );
  return {
    grant: 'client_credentials',
    clientAuth: 'assertion',
    resource: c.resource,
    clientId: c.clientId,
    objectId: c.app?.objectId ?? c.clientId,
    subject,
    audience,
  };
}
