// credprov's model of WHEN the three field clients (fabric8, kube-rs,
// kubernetes_asyncio; src/clients/*) run an exec plugin, request by request,
// and what each request carries: exec-credential-cache.ts's contract for the
// four core clients, for these three. Each is one long-lived client per
// session, built on the first request (as their probes do). What the plugin
// is told on a run is pluginLaunch in exec-info.ts (fieldLaunch below).
//
// fabric8 kubernetes-client 8.0.0 (src/clients/fabric8/fabric8-rules.ts):
// - KubeConfigUtils.java:335-376: Config.autoConfigure runs the plugin once
//   while the client is built; expirationTimestamp is never read
//   (Config.java:752-757 ExecCredentialStatus has no such field).
// - TokenRefreshInterceptor.java:44-78: before a request, once a minute has
//   passed since the last refresh, autoConfigure again (a plugin run); on a 401
//   (afterFailure) the same refresh, and when it gives a token (non-null) the
//   interceptor sets it and StandardHttpClient.java:118-135 sends the request
//   once more: the retry's status is the request's.
// - CertUtils (kubernetes-client-api internal) reads an EC private key only
//   with BouncyCastle (bcpkix) on the classpath, which the client does not
//   depend on: without it an ECDSA key (what credprov's exec certificates
//   use, src/core/client-cert.ts) is parsed as RSA and building the client
//   fails ("Invalid DER: object is not integer"). The probe builds again on
//   the next request: one run and an error per request. Observed on the real
//   client (exec-plugin-401, EX401-CLIENT-CERT-ROTATION).
//
// kube-rs, kube 5.0.0 (kube-client-5.0.0, src/clients/kube-rs/kube-rs-rules.ts):
// - builder.rs:313,324,411: Client::try_from runs the plugin three times:
//   auth_layer (the token requests carry), the TLS connector's
//   exec_identity_pem (the certificate the connection presents), and
//   exec_identity_pem again for Client::valid_until.
// - auth/mod.rs:340-372: a token with expirationTimestamp is refreshable, one
//   without is a static Bearer for the client's life; a certificate pair wins
//   over a token and is fixed in TLS.
// - auth/mod.rs:207-236 to_header: before every request, when now + 60 s >=
//   expiry, the plugin runs again (Auth::try_from) and its token is used.
// - nothing looks at a 401.
//
// kubernetes_asyncio 36.1.0 (src/clients/kubernetes-asyncio/kubernetes-asyncio-rules.ts):
// - kube_config.py:348-395: load_kube_config runs the plugin once; its token
//   is a fixed api_key and a certificate the SSL context's, for the
//   Configuration's life. Only a refresh_token() task the program starts
//   (kube_config.py:732-754) runs it again; the probe, like most programs,
//   starts none. Nothing looks at a 401.
import type { FieldClientName } from '../clients/probe.ts';
import type { ClientSessionModel, Credential, ModelWorld, PredictedRequest } from './exec-session.ts';

/** fabric8's refresh interval (TokenRefreshInterceptor.timeToRefresh). */
export const FABRIC8_REFRESH_MS = 60_000;
/** kube-rs's early refresh (auth/mod.rs SIXTY_SEC). */
export const KUBE_RS_EXPIRY_SKEW_MS = 60_000;

export function fieldSessionModel(client: FieldClientName, world: ModelWorld): ClientSessionModel {
  switch (client) {
    case 'fabric8':
      return new Fabric8Session(world);
    case 'kube-rs':
      return new KubeRsSession(world);
    case 'kubernetes-asyncio':
      return new AsyncioSession(world);
  }
}

const present = (token: string | undefined, cert: string | undefined) => ({
  ...(token !== undefined ? { token } : {}),
  ...(cert !== undefined ? { cert } : {}),
});

class Fabric8Session implements ClientSessionModel {
  readonly client = 'fabric8' as const;
  private built = false;
  private token: string | undefined;
  private lastRefresh = 0;
  private readonly world: ModelWorld;
  constructor(world: ModelWorld) {
    this.world = world;
  }

  /** Config.autoConfigure: a plugin run; what it gives (undefined when the run failed: logged, no credential). */
  private configure(now: number): Credential | undefined {
    const r = this.world.runPlugin(now);
    return r.ok ? r.credential : undefined;
  }

  request(now: number): PredictedRequest {
    let runs = 0;
    const steps: string[] = [];
    if (!this.built) {
      runs++;
      const c = this.configure(now);
      if (c?.token === undefined && c?.cert !== undefined)
        return {
          runs,
          error: 'IOException: Invalid DER: object is not integer',
          because: 'autoConfigure: run; an ECDSA client key without BouncyCastle: building the client fails',
        };
      // KubeConfigUtils.java:322-327: a token wins; the certificate is used only without one.
      this.token = c?.token;
      this.built = true;
      this.lastRefresh = now;
      steps.push('autoConfigure: run (expirationTimestamp is never read)');
    } else if (now - this.lastRefresh > FABRIC8_REFRESH_MS) {
      runs++;
      const c = this.configure(now);
      if (c?.token !== undefined) {
        this.token = c.token;
        this.lastRefresh = now;
      }
      steps.push('a minute since the last refresh → run');
    }
    let status = this.world.serve(now, present(this.token, undefined));
    steps.push(`sent → ${status}`);
    if (status === 401) {
      runs++;
      const c = this.configure(now);
      if (c?.token !== undefined) {
        this.token = c.token;
        this.lastRefresh = now;
        status = this.world.serve(now, present(this.token, undefined));
        steps.push(`401 → run, a token → the request sent again → ${status}`);
      } else steps.push('401 → run, no token → the 401 is returned');
    }
    return { status, runs, because: steps.join('; ') };
  }
}

class KubeRsSession implements ClientSessionModel {
  readonly client = 'kube-rs' as const;
  private built = false;
  private token: string | undefined;
  private expiresAt: number | undefined;
  private cert: string | undefined;
  private readonly world: ModelWorld;
  constructor(world: ModelWorld) {
    this.world = world;
  }

  request(now: number): PredictedRequest {
    let runs = 0;
    const steps: string[] = [];
    if (!this.built) {
      // builder.rs: auth_layer, then the TLS connector, then valid_until: three runs; a failed one fails the build.
      const three = [0, 1, 2].map(() => (runs++, this.world.runPlugin(now)));
      const failed = three.find((r) => !r.ok);
      if (failed && !failed.ok)
        return { runs, error: failed.error, because: 'Client::try_from: a run failed; nothing sent' };
      const [auth, tls] = three.map((r) => (r.ok ? r.credential : {})) as [Credential, Credential];
      // auth/mod.rs:350-360: a certificate pair wins; then no auth layer token.
      if (auth.cert === undefined) {
        this.token = auth.token;
        this.expiresAt = auth.token !== undefined ? auth.expiresAt : undefined;
      }
      this.cert = tls.cert;
      this.built = true;
      steps.push(
        'Client::try_from: 3 runs (auth layer, TLS identity, valid_until); the token of the first, the certificate of the second',
      );
    }
    if (this.token !== undefined && this.expiresAt !== undefined && now + KUBE_RS_EXPIRY_SKEW_MS >= this.expiresAt) {
      runs++;
      const r = this.world.runPlugin(now);
      if (!r.ok)
        return { runs, error: r.error, because: [...steps, 'to_header: refresh failed; nothing sent'].join('; ') };
      if (r.credential.expiresAt === undefined)
        return {
          runs,
          error: 'UnrefreshableTokenResponse',
          because: [...steps, 'to_header: the refresh gave a token without expiry; nothing sent'].join('; '),
        };
      this.token = r.credential.token;
      this.expiresAt = r.credential.expiresAt;
      steps.push('to_header: expiry within 60 s → run');
    }
    const status = this.world.serve(now, present(this.token, this.cert));
    steps.push(`sent → ${status}${status === 401 ? '; a 401 changes nothing' : ''}`);
    return { status, runs, because: steps.join('; ') };
  }
}

class AsyncioSession implements ClientSessionModel {
  readonly client = 'kubernetes-asyncio' as const;
  private loaded = false;
  private token: string | undefined;
  private cert: string | undefined;
  private readonly world: ModelWorld;
  constructor(world: ModelWorld) {
    this.world = world;
  }

  request(now: number): PredictedRequest {
    let runs = 0;
    let first = '';
    if (!this.loaded) {
      runs++;
      const r = this.world.runPlugin(now);
      this.loaded = true;
      if (!r.ok) return { runs, error: r.error, because: 'load_kube_config: run failed; nothing sent' };
      // kube_config.py:358-366: a token wins; the certificate only without one.
      this.token = r.credential.token;
      this.cert = r.credential.token === undefined ? r.credential.cert : undefined;
      first = 'load_kube_config: run (the only one: no refresh_token task); ';
    }
    const status = this.world.serve(now, present(this.token, this.cert));
    return {
      status,
      runs,
      because: `${first}sent → ${status}${status === 401 ? '; a 401 changes nothing' : ''}`,
    };
  }
}
