// Entry point of a detached token server (`credprov registry up --auth token`):
// node registry/token-server-main.ts <config.json>. Users come from a JSON file
// re-read when it changes, so users can be rotated without a restart.
import { readFile } from 'node:fs/promises';
import { stderrLogger } from '../src/core/logger.ts';
import { FileUsers, TokenServer } from './token-server.ts';
import type { KeyPair } from '../src/core/tls.ts';

export interface TokenServerConfig {
  issuer: string;
  service: string;
  lifetimeSeconds: number;
  signing: KeyPair;
  usersFile: string;
  address: string;
  port: number;
}

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: token-server-main.ts <config.json>\n');
  process.exit(2);
}
const c = JSON.parse(await readFile(file, 'utf8')) as TokenServerConfig;
const server = await new TokenServer({
  issuer: c.issuer,
  service: c.service,
  lifetimeSeconds: c.lifetimeSeconds,
  signing: c.signing,
  users: new FileUsers(c.usersFile),
  address: c.address,
  port: c.port,
  logger: stderrLogger('info', 'credprov:token-server'),
}).start();
process.stderr.write(`token server listening, realm ${server.realm}\n`);
const shutdown = () => void server.stop().then(() => process.exit(0));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
