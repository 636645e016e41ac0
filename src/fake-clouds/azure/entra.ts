// A fake Entra ID tenant for the clients of an AKS cluster (Azure kubelogin):
// Entra ID itself (entra-id.ts) over https on 443 of a loopback address under
// login.microsoftonline.com (a hosts line; the fake's CA is what the plugin
// and kube-apiserver trust), and managed identity as App Service exposes it
// (managed-identity.ts) on 127.0.0.1. Every access token either mints is a
// v2.0 JWT for the API the scope names, signed with the tenant's key and
// published in its JWKS (entra-tokens.ts): kube-apiserver's JWT authenticator,
// pointed at https://login.microsoftonline.com/<tenant>/v2.0, accepts exactly
// those, until they expire. Every request is recorded without a secret.
import { readFile } from 'node:fs/promises';
import type { HostsFile } from '../../core/hosts.ts';
import { FakeCloud, IssuedTokens, serveUnderHostnames, type OidcTrust, type ServedHostnames } from '../kit/index.ts';
import { FakeAzureAd, type EntraApp, type EntraUser, type FederatedCredential } from './entra-id.ts';
import { AAD_HOST, EntraTokenSigner, entraIssuer } from './entra-tokens.ts';
import { IDENTITY_PATH, managedIdentityEndpoint } from './managed-identity.ts';
import { publicPath, type FakeAzureRequest, type IssuedAccess } from './records.ts';
import { tokenFingerprint } from '../../authn/token-book.ts';

export { AAD_HOST, entraIssuer } from './entra-tokens.ts';

/** A managed identity the App Service endpoint answers for: system-assigned (no clientId) or user-assigned. */
export interface ManagedIdentity {
  clientId?: string;
  objectId: string;
}

export interface FakeEntraOptions {
  tenantId: string;
  apps: EntraApp[];
  users: EntraUser[];
  /** Federated identity credentials (workload identity): their assertions are verified against trustOidc's issuer. */
  credentials: FederatedCredential[];
  /** The APIs tokens may be asked for (their client ids: an AKS cluster's server id). */
  resources: string[];
  /** App Service's per-site secret (X-IDENTITY-HEADER) and the identities it serves. */
  identityHeader: string;
  managedIdentities: ManagedIdentity[];
  /** A minted access token's life (Entra ID's default: 60–90 minutes). */
  tokenLifetimeS: number;
  /** Hears every token before it leaves (a redactor's add). */
  onSecret?: (secret: string) => void;
  logFile?: string;
  now?: () => number;
}

/** An access token the fake minted (what a record and a check may say of it). */
export interface MintedToken {
  fingerprint: string;
  audience: string;
  objectId: string;
  clientId: string;
  expiresAt: number;
}

export interface StartedEntra extends ServedHostnames {
  /** https://login.microsoftonline.com/<tenant>/v2.0: the issuer the API server trusts. */
  issuer: string;
  /** IDENTITY_ENDPOINT for App Service managed identity. */
  identityEndpoint: string;
  /** The CA's PEM (for an AuthenticationConfiguration's certificateAuthority). */
  caPem: string;
}

export class FakeEntraId {
  private readonly o: FakeEntraOptions;
  private readonly cloud: FakeCloud<FakeAzureRequest>;
  private readonly minted: MintedToken[] = [];
  private signer: EntraTokenSigner | undefined;
  private aad: FakeAzureAd | undefined;

  constructor(o: FakeEntraOptions) {
    this.o = o;
    this.cloud = new FakeCloud<FakeAzureRequest>({
      name: 'Entra ID',
      ...(o.logFile ? { logFile: o.logFile } : {}),
      ...(o.now ? { clock: o.now } : {}),
    });
  }

  /** Serves Entra ID under login.microsoftonline.com (hosts line, CA under `dir`) and managed identity on 127.0.0.1. */
  async start(o: { dir: string; hostsFile?: HostsFile; ownerPrefix?: string }): Promise<StartedEntra> {
    this.signer = await EntraTokenSigner.create({ now: this.cloud.now });
    this.aad = new FakeAzureAd(this.o.credentials, {
      tenantId: this.o.tenantId,
      apps: this.o.apps,
      users: this.o.users,
      resources: this.o.resources,
      signer: this.signer,
    });
    const aadEndpoint = this.aad.endpoint<FakeAzureRequest>(
      async (resource, _identity, granted) => {
        const t = await this.mint(resource, granted!.objectId, granted!.clientId, granted!.username);
        return { token: t.token, expiresIn: Math.round((t.expiresAt - this.cloud.now()) / 1000) };
      },
      (req) => ({ endpoint: 'aad', path: publicPath(req.url) }),
    );
    const served = await serveUnderHostnames(
      {
        hostnames: [AAD_HOST],
        dir: o.dir,
        caName: 'credprov fake Entra ID CA',
        ownerPrefix: o.ownerPrefix ?? 'vendor/azure-kubelogin/',
        ...(o.hostsFile ? { hostsFile: o.hostsFile } : {}),
      },
      (at) => this.cloud.listen(aadEndpoint, { address: at.address, port: at.port, tls: at }),
    );
    const identities = this.o.managedIdentities;
    const identity = await this.cloud.listen(
      managedIdentityEndpoint({
        identityHeader: this.o.identityHeader,
        identities: identities.flatMap((m) => (m.clientId ? [m.clientId] : [])),
        tokens: new IssuedTokens<IssuedAccess>(),
        now: this.cloud.now,
        mint: (resource, who) => {
          const mi = identities.find((m) => (who === 'system-assigned' ? !m.clientId : m.clientId === who));
          return this.mint(resource, mi?.objectId ?? who, mi?.clientId ?? who);
        },
      }),
    );
    return {
      ...served,
      issuer: entraIssuer(this.o.tenantId),
      identityEndpoint: `${identity.url}${IDENTITY_PATH}`,
      caPem: await readFile(served.caFile, 'utf8'),
    };
  }

  /** The cluster's service-account issuer: workload identity assertions are its tokens. */
  trustOidc(oidc: OidcTrust): void {
    if (!this.aad) throw new Error('FakeEntraId: start() first');
    this.aad.trustOidc(oidc);
  }

  requests(): FakeAzureRequest[] {
    return this.cloud.requests();
  }

  /** Every access token minted so far (fingerprints, never the tokens). */
  tokens(): MintedToken[] {
    return this.minted.map((t) => ({ ...t }));
  }

  stop(): Promise<void> {
    return this.cloud.stop();
  }

  private async mint(resource: string, objectId: string, clientId: string, username?: string) {
    const t = await this.signer!.mint(
      { tenant: this.o.tenantId, audience: resource, objectId, clientId, ...(username ? { username } : {}) },
      this.o.tokenLifetimeS,
    );
    this.o.onSecret?.(t.token);
    this.minted.push({
      fingerprint: tokenFingerprint(t.token),
      audience: resource,
      objectId,
      clientId,
      expiresAt: t.expiresAt,
    });
    return t;
  }
}
