// The real Google Cloud SDK (`gcloud`, when installed) for gke-gcloud-auth-plugin's
// default token provider, which runs `gcloud config config-helper --format=json`
// and caches its answer (gcloud_token_provider.go). gcloud is kept on loopback:
// - a service account activated from a lab key file, whose token_uri is the fake
//   Google token endpoint, and auth/token_host pointed there too;
// - no update check, usage reporting, prompts or GCE metadata check (properties set
//   through CLOUDSDK_* variables), and, should anything still try, every proxy
//   variable and the metadata root (GCE_METADATA_ROOT, which gcloud reads without a
//   proxy) point at a loopback catch-all that refuses and records it.
// One CLOUDSDK_CONFIG dir per gcloud configuration (an account each); gcloud writes
// a log file per invocation under <config>/logs, which is how a case counts its runs.
import { appendFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';

export interface CatchAllRequest {
  at: string;
  method: string;
  /** The request target: host:port for CONNECT, else the URL (path, or absolute through a proxy). */
  target: string;
  host?: string;
}

export interface CatchAll {
  /** 127.0.0.1:port */
  hostPort: string;
  requests(): CatchAllRequest[];
  stop(): Promise<void>;
}

/** Refuses (403) and records every request and CONNECT: whatever gcloud tries beyond the fake token endpoint. */
export async function startCatchAll(log?: string): Promise<CatchAll> {
  const seen: CatchAllRequest[] = [];
  const record = (method: string, target: string, host?: string) => {
    const r = { at: new Date().toISOString(), method, target, ...(host ? { host } : {}) };
    seen.push(r);
    if (log) appendFileSync(log, `${JSON.stringify(r)}\n`);
  };
  const server: Server = createServer((req, res) => {
    record(req.method ?? '', req.url ?? '', req.headers.host);
    res.writeHead(403, { 'content-type': 'text/plain' }).end('credprov: no traffic leaves this machine\n');
  });
  server.on('connect', (req, socket) => {
    record('CONNECT', req.url ?? '');
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return {
    hostPort: `${a.address}:${a.port}`,
    requests: () => seen.map((r) => ({ ...r })),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** gcloud on PATH, or undefined. */
export async function findGcloud(path = process.env.PATH ?? ''): Promise<string | undefined> {
  const r = await execa('sh', ['-c', 'command -v gcloud'], { reject: false, env: { PATH: path } });
  return r.exitCode === 0 && String(r.stdout).trim() ? String(r.stdout).trim() : undefined;
}

/** The variables that keep one gcloud configuration on loopback (for the plugin's exec.env and for activation). */
export function gcloudEnv(o: { configDir: string; tokenUri: string; catchAll: string }): Record<string, string> {
  const proxy = `http://${o.catchAll}`;
  return {
    CLOUDSDK_CONFIG: o.configDir,
    CLOUDSDK_AUTH_TOKEN_HOST: o.tokenUri,
    CLOUDSDK_CORE_DISABLE_PROMPTS: '1',
    CLOUDSDK_CORE_DISABLE_USAGE_REPORTING: 'true',
    CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK: 'true',
    CLOUDSDK_CORE_CHECK_GCE_METADATA: 'false',
    CLOUDSDK_METRICS_ENVIRONMENT: 'credprov',
    GCE_METADATA_ROOT: o.catchAll,
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    NO_PROXY: '127.0.0.1',
    no_proxy: '127.0.0.1',
  };
}

/** `gcloud auth activate-service-account --key-file` into `env.CLOUDSDK_CONFIG` (it fetches a token at once). */
export async function activateServiceAccount(gcloud: string, keyFile: string, env: Record<string, string>) {
  const r = await execa(gcloud, ['auth', 'activate-service-account', `--key-file=${keyFile}`], {
    reject: false,
    extendEnv: false,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: env.CLOUDSDK_CONFIG!, ...env },
    timeout: 60_000,
  });
  if (r.exitCode !== 0)
    throw new Error(
      `gcloud auth activate-service-account failed (exit ${r.exitCode}): ${String(r.stderr).slice(0, 600)}`,
    );
}

/** How many times gcloud ran with this configuration: one log file per invocation. */
export async function gcloudInvocations(configDir: string): Promise<number> {
  const days = await readdir(join(configDir, 'logs')).catch(() => [] as string[]);
  let n = 0;
  for (const d of days) n += (await readdir(join(configDir, 'logs', d)).catch(() => [] as string[])).length;
  return n;
}
