// Fake Azure on loopback for the real acr-credential-provider, strict where
// Azure is, recording every request without secrets (records.ts):
// - managed identity as App Service exposes it (managed-identity.ts), on 127.0.0.1;
// - an ACR login server's challenge and refresh-token exchange (acr-login-server.ts)
//   and Entra ID's client-assertion endpoints (entra-id.ts), over https on 443 of a
//   loopback address under their real names (serveTls; login-server.ts maps them).
// An access token issued by managed identity or Entra ID is one the exchange accepts.
import { FakeCloud, IssuedTokens, Refusal, type Endpoint } from '../kit/index.ts';
import { acrLoginServerEndpoint } from './acr-login-server.ts';
import { AAD_HOST, type FakeAzureAd } from './entra-id.ts';
import { managedIdentityEndpoint, IDENTITY_PATH } from './managed-identity.ts';
import { publicPath, type FakeAzureRequest, type IssuedAccess } from './records.ts';

export { ACR_AUDIENCE } from './acr-login-server.ts';
export {
  AAD_HOST,
  FakeAzureAd,
  type EntraApp,
  type EntraIdSeen,
  type EntraUser,
  type FederatedCredential,
  type Granted,
} from './entra-id.ts';
export {
  entraIssuer,
  FakeEntraId,
  type FakeEntraOptions,
  type ManagedIdentity,
  type MintedToken,
  type StartedEntra,
} from './entra.ts';
export type { FakeAzureRequest } from './records.ts';
export { serveFakeLoginServer, type FakeLoginServer } from './login-server.ts';

export interface FakeAzureOptions {
  tenantId: string;
  /** The value IDENTITY_HEADER must carry (a secret: App Service's per-site header). */
  identityHeader: string;
  /** User-assigned identities the fake knows (client ids); system-assigned always works. */
  identities?: string[];
  /** The refresh token an exchange for `loginServer` hands out (the lab registry's password for ACR_TOKEN_USERNAME). */
  refreshToken(loginServer: string): string;
  /** Entra ID at https://login.microsoftonline.com (client assertions), served by serveTls when set. */
  aad?: FakeAzureAd;
  /** Called with every access token it issues, before it leaves (a redactor's add). */
  onSecret?: (secret: string) => void;
  logFile?: string;
}

/** A Host this listener does not serve: 421, recorded. */
const notServed: Endpoint<FakeAzureRequest> = {
  record: (req) => ({ endpoint: 'acr', path: `//${req.host}` }),
  refuse: (r) => ({ status: r.status }),
  answer: (req) => {
    throw new Refusal(421, 'MisdirectedRequest', `not served: ${req.host}`);
  },
};

export class FakeAzure {
  private readonly o: FakeAzureOptions;
  private readonly cloud: FakeCloud<FakeAzureRequest>;
  private readonly tokens: IssuedTokens<IssuedAccess>;

  constructor(o: FakeAzureOptions) {
    this.o = o;
    this.cloud = new FakeCloud<FakeAzureRequest>({ name: 'Azure', ...(o.logFile ? { logFile: o.logFile } : {}) });
    this.tokens = new IssuedTokens<IssuedAccess>(o.onSecret ? { onSecret: o.onSecret } : {});
  }

  /** Every request so far, in order. */
  requests(): FakeAzureRequest[] {
    return this.cloud.requests();
  }

  /** Starts the managed identity endpoint on 127.0.0.1; returns IDENTITY_ENDPOINT. */
  async startIdentity(): Promise<string> {
    const { url } = await this.cloud.listen(
      managedIdentityEndpoint({
        identityHeader: this.o.identityHeader,
        identities: this.o.identities ?? [],
        tokens: this.tokens,
        now: this.cloud.now,
      }),
    );
    return `${url}${IDENTITY_PATH}`;
  }

  /**
   * Serves, over https on `address:port`, each of `loginServers`' /v2/ challenge and /oauth2/exchange
   * and, when the fake has one, Entra ID: which one a request is for is its Host header.
   */
  async serveTls(o: { loginServers: string[]; address: string; port?: number; certPem: string; keyPem: string }) {
    const exchange = { tenantId: this.o.tenantId, tokens: this.tokens, refreshToken: this.o.refreshToken };
    const hosts: Record<string, Endpoint<FakeAzureRequest>> = Object.fromEntries(
      o.loginServers.map((s) => [s, acrLoginServerEndpoint(s, exchange)]),
    );
    if (this.o.aad)
      hosts[AAD_HOST] = this.o.aad.endpoint<FakeAzureRequest>(
        (resource, identity) => ({ token: this.tokens.issue({ resource, identity }), expiresIn: 3600 }),
        (req) => ({ endpoint: 'aad', path: publicPath(req.url) }),
      );
    const { address, port } = await this.cloud.listen(
      { hosts, otherwise: notServed },
      { address: o.address, port: o.port ?? 443, tls: { certPem: o.certPem, keyPem: o.keyPem } },
    );
    return { address, port };
  }

  async stop(): Promise<void> {
    await this.cloud.stop();
  }
}
