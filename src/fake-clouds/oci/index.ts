// Fake OCI for `oci ce cluster generate-token` (oci-cli): the plugin calls
// nothing (its token is a request it signed locally), so the fake is what OKE's
// authenticator asks once a client presents the token: Container Engine's
// cluster_request (container-engine.ts), which checks the signature with the
// tenancy's API keys. answerToken() replays a token's request in process,
// recorded like any other; the token webhook standing in for OKE's
// authenticator accepts exactly what it answers 200.
import { cloudRequest, FakeCloud } from '../kit/index.ts';
import { clusterRequestEndpoint, type OciApiKey } from './container-engine.ts';
import type { OciRecord } from './records.ts';

export type { OciApiKey } from './container-engine.ts';
export type { OciRecord } from './records.ts';

export interface FakeOciOptions {
  region: string;
  clusters: string[];
  keys: OciApiKey[];
  logFile?: string;
  now?: () => number;
}

export type OciTokenAnswer =
  | { ok: true; user: string; tenancy: string; cluster: string; record: OciRecord }
  | { ok: false; status: number; code: string; message: string; record?: OciRecord };

export class FakeOci {
  private readonly cloud: FakeCloud<OciRecord>;
  private readonly o: FakeOciOptions;
  private readonly keys: OciApiKey[];

  constructor(o: FakeOciOptions) {
    this.o = o;
    this.keys = [...o.keys];
    this.cloud = new FakeCloud<OciRecord>({
      name: 'OCI',
      ...(o.logFile ? { logFile: o.logFile } : {}),
      ...(o.now ? { clock: o.now } : {}),
      errorOf: (r) => `${r.code}: ${r.message}`,
    });
  }

  /** Uploads an API key (a user's public key) to the tenancy. */
  addKey(key: OciApiKey): void {
    this.keys.push(key);
  }

  /** What Container Engine answers the request a generate-token token carries (base64url of the signed URL). */
  async answerToken(token: string): Promise<OciTokenAnswer> {
    let url: URL;
    try {
      url = new URL(Buffer.from(token, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, status: 400, code: 'InvalidParameter', message: 'the token is not base64url of a URL' };
    }
    const q = url.searchParams;
    const headers: Record<string, string> = { host: url.host };
    for (const h of ['authorization', 'date', 'opc-obo-token']) if (q.get(h) !== null) headers[h] = q.get(h)!;
    const endpoint = clusterRequestEndpoint({
      region: this.o.region,
      clusters: () => this.o.clusters,
      keys: () => this.keys,
      now: this.cloud.now,
    });
    const { reply, record } = await this.cloud.exchange(
      endpoint,
      cloudRequest({ method: 'GET', target: url.pathname, headers }),
    );
    const body = JSON.parse(String(reply.body ?? '{}')) as Record<string, string>;
    if (reply.status !== 200)
      return { ok: false, status: reply.status, code: body.code ?? '', message: body.message ?? '', record };
    return { ok: true, user: body.userId!, tenancy: body.tenancyId!, cluster: body.cluster!, record };
  }

  requests(): OciRecord[] {
    return this.cloud.requests();
  }

  stop(): Promise<void> {
    return this.cloud.stop();
  }
}
