// Fake GCE for the real auth-provider-gcp: the metadata server (metadata.ts)
// on port 80 of a loopback address of its own, which the lab maps
// metadata.google.internal to (the plugin's URL is hard-coded, plain http);
// a storage endpoint on 127.0.0.1 serving the objects a google-dockercfg-url
// attribute may point at; and the registry login rule (registry-login.ts) for
// the gcr.io / Artifact Registry token services, which accepts exactly the
// access tokens the metadata server minted, until they expire.
import { FakeCloud, IssuedTokens, Refusal, serveOnFreeLoopbackAddress, type Endpoint } from '../kit/index.ts';
import { metadataEndpoint, type MetadataGrant, type MetadataRecord } from './metadata.ts';
import { GoogleRegistryLogins } from './registry-login.ts';

export { METADATA_PREFIX, type MetadataGrant, type MetadataRecord } from './metadata.ts';
export { GOOGLE_REGISTRY_USERNAMES, type LoginVerdict, type RegistryLogin } from './registry-login.ts';

export interface FakeGceOptions {
  /** The default service account's email. */
  email: string;
  /** A minted token's life, and how long before its end the server mints another (Google: 3600 and 300). */
  tokenLifetimeS?: number;
  refreshBeforeS?: number;
  /** Called with every access token before it leaves (a redactor's add). */
  onSecret?: (token: string) => void;
  /** JSONL copies of the metadata and storage requests, and of the registry logins. */
  logFile?: string;
  loginLogFile?: string;
  now?: () => number;
}

export interface FakeGceEndpoints {
  /** The loopback address metadata.google.internal must resolve to (the server listens on its port 80). */
  metadataAddress: string;
  /** http://<address>:80 */
  metadataUrl: string;
  /** http://127.0.0.1:<port>: objects put with putObject() are under /<name>. */
  storageUrl: string;
}

export class FakeGce {
  private readonly cloud: FakeCloud<MetadataRecord>;
  private readonly tokens: IssuedTokens<MetadataGrant>;
  private readonly o: FakeGceOptions;
  private readonly attrs: Record<string, string> = {};
  private readonly objects = new Map<string, string>();
  private down = false;
  readonly logins: GoogleRegistryLogins;

  constructor(o: FakeGceOptions) {
    this.o = o;
    this.cloud = new FakeCloud<MetadataRecord>({
      name: 'GCE metadata',
      ...(o.logFile ? { logFile: o.logFile } : {}),
      ...(o.now ? { clock: o.now } : {}),
    });
    this.tokens = new IssuedTokens<MetadataGrant>(o.onSecret ? { onSecret: o.onSecret } : {});
    this.logins = new GoogleRegistryLogins({
      tokens: this.tokens,
      now: this.cloud.now,
      ...(o.loginLogFile ? { logFile: o.loginLogFile } : {}),
    });
  }

  async start(): Promise<FakeGceEndpoints> {
    const metadata = metadataEndpoint({
      email: this.o.email,
      tokens: this.tokens,
      tokenLifetimeS: this.o.tokenLifetimeS ?? 3600,
      refreshBeforeS: this.o.refreshBeforeS ?? 300,
      attributes: () => this.attrs,
      unavailable: () => this.down,
      now: this.cloud.now,
    });
    const metadataAddress = await serveOnFreeLoopbackAddress((address) =>
      this.cloud.listen(metadata, { address, port: 80 }),
    );
    const storage = await this.cloud.listen(this.storageEndpoint());
    return { metadataAddress, metadataUrl: `http://${metadataAddress}:80`, storageUrl: storage.url };
  }

  /** Sets (or, with undefined, removes) a custom instance metadata value. */
  setAttribute(key: string, value: string | undefined): void {
    if (value === undefined) delete this.attrs[key];
    else this.attrs[key] = value;
  }

  /** An object the storage endpoint serves at /<name> (what a google-dockercfg-url points at). */
  putObject(name: string, body: string): void {
    this.objects.set(name, body);
  }

  /** While set, the metadata server answers every request 503. */
  setUnavailable(down: boolean): void {
    this.down = down;
  }

  /** Every metadata and storage request so far, in order. */
  requests(): MetadataRecord[] {
    return this.cloud.requests();
  }

  stop(): Promise<void> {
    return this.cloud.stop();
  }

  private storageEndpoint(): Endpoint<MetadataRecord> {
    return {
      refuse: (r) => ({ status: r.status, headers: { 'content-type': 'text/plain' }, body: r.message }),
      record: (req) => ({ host: req.header('host') ?? '', flavor: req.header('metadata-flavor') === 'Google' }),
      answer: (req) => {
        const body = req.method === 'GET' ? this.objects.get(req.url.pathname.slice(1)) : undefined;
        if (body === undefined) throw new Refusal(404, 'NoSuchKey', 'The specified key does not exist.');
        return { status: 200, headers: { 'content-type': 'application/json' }, body };
      },
    };
  }
}
