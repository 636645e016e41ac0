// The registry provider contract. A provider starts an authenticated OCI
// registry and hands back a StartedRegistry; only a started registry has a
// host, a URL and a push(). stop() is idempotent and safe after a failed start.
import type { Logger } from '../src/core/logger.ts';
import type { Progress } from '../src/core/progress.ts';
import type { HostsFile } from '../src/core/hosts.ts';
import type { AuthMode, AuthSpec, User } from './auth.ts';
import type { Credentials, RegistryClient } from './client.ts';
import type { BuiltImage } from './image/build.ts';
import type { ReadyCheck } from './ready.ts';
import type { KeyPair } from '../src/core/tls.ts';
import type { TokenServer } from './token-server.ts';

export interface RegistrySpec {
  /** Identifies the registry in state, /etc/hosts markers and logs: [a-z0-9-]. */
  name: string;
  /** Name used in image references; gets an /etc/hosts entry unless it is an IP. Default: registry.test for `default`, else <name>.registry.test. */
  hostname?: string;
  /** Loopback address to bind and map the hostname to. Default 127.0.0.1. */
  address?: string;
  /** Default: the first free port from 5000 up. */
  port?: number;
  auth: AuthSpec;
  tls?: boolean;
  /** Reuse one CA across registries so a single ca.crt trusts them all. */
  ca?: KeyPair;
  ready?: ReadyCheck;
  /** State dir (config, certs, log, storage). Default: a fresh temp dir, removed by stop(). */
  dir?: string;
  /** Keep running after this process exits (`credprov registry up`). */
  detached?: boolean;
  /** Where hostname entries go; false: add none (the name must resolve already). */
  hosts?: HostsFile | false;
  logger?: Logger;
  progress?: Progress;
}

export interface AuthInfo {
  mode: AuthMode;
  /** Token mode: the realm the registry sends clients to. */
  realm?: string;
  /** Users a test or vendor may use (the harness's own admin is not listed). */
  users: User[];
}

/** Changes to a running registry's users. htpasswd mode rewrites the file and restarts the registry (same port and storage); token mode applies to the next token request (tokens already issued stay valid until they expire). */
export interface UserAdmin {
  add(user: User): Promise<void>;
  rotate(username: string, password: string): Promise<void>;
  revoke(username: string): Promise<void>;
}

export interface StartedRegistry {
  readonly name: string;
  /** As used in image references: `registry.test:5000`. */
  readonly host: string;
  readonly hostname: string;
  /** The loopback address it listens on (its certificate carries it as an IP SAN). */
  readonly address: string;
  readonly port: number;
  /** Base URL on the loopback address: `http://127.0.0.1:5000`. */
  readonly url: string;
  readonly scheme: 'http' | 'https';
  readonly caCertPath?: string;
  readonly auth: AuthInfo;
  /** Full-access account the harness pushes with. */
  readonly admin: Credentials;
  readonly dir: string;
  readonly logFile: string;
  readonly users: UserAdmin;
  /** In-process token server (not set for detached registries). */
  readonly tokenServer?: TokenServer;
  /** `<host>/<name>:<tag>`. */
  ref(name: string, tag?: string): string;
  /** A client on the registry's hostname (TLS verified against the CA); credentials default to none. */
  client(credentials?: Credentials): RegistryClient;
  /** Pushes with the admin account; returns the full reference. */
  push(image: BuiltImage, as?: { name?: string; tag?: string }): Promise<string>;
  /** Writes `<configPath>/<host>/hosts.toml` (+ ca.crt) so containerd reaches and trusts this registry: at its loopback address, so no pull needs name resolution. */
  trustForContainerd(configPath: string): Promise<string>;
  /**
   * Makes containerd send pulls of images named `imageHost` (docker.io,
   * a.reg.test, reg.test:443 …) to this registry: `<configPath>/<imageHost>/hosts.toml`
   * with this registry as server. The kubelet still sees the image's own
   * name, and credentials still flow: the kubelet sets no ServerAddress on
   * provider or secret credentials, so containerd (ParseAuth) hands them to
   * whichever host it contacts. Returns the directory written.
   */
  serveAs(configPath: string, imageHost: string): Promise<string>;
  stop(): Promise<void>;
}

export type Availability = { ok: true } | { ok: false; reason: string };

export interface RegistryProvider {
  readonly name: 'process' | 'container';
  /** Says why this provider cannot run here (missing binary, no Docker daemon). */
  isAvailable(): Promise<Availability>;
  start(spec: RegistrySpec): Promise<StartedRegistry>;
}

export function defaultHostname(name: string): string {
  return name === 'default' ? 'registry.test' : `${name}.registry.test`;
}

export const NAME_RE = /^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$/;
