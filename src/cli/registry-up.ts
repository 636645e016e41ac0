// credprov registry up: start an authenticated local registry that outlives
// the command. State lives in <stateDir>/registries/<name>/; the last stdout
// line is one JSON object describing it.
import { writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import {
  Auth,
  generatedUser,
  parseUserFlag,
  type AuthSpec,
  type User,
  busyboxImage,
  pauseImage,
  processProvider,
  containerProvider,
  removeContainer,
  defaultHostname,
  NAME_RE,
  type StartedRegistry,
  readState,
  registriesDir,
  teardown,
  writeState,
  listStates,
} from '../../registry/index.ts';
import { portFree } from '../core/ports.ts';
import { parseGoDuration } from '../core/duration.ts';
import { UsageError, wrap } from '../core/errors.ts';
import { isHostname } from '../core/hosts.ts';
import { stderrProgress, step } from '../core/progress.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';
import { announceInterrupt } from './output.ts';
import { interruptExitCode } from './signals.ts';

const MODES = ['none', 'htpasswd', 'token'] as const;

export const command: Command = {
  path: ['registry', 'up'],
  summary: 'start an authenticated local registry that outlives the command',
  usage: `Usage: credprov registry up [--name N] [--provider process|container] [--auth none|htpasswd|token] [--tls] [--host HOSTNAME] [--port PORT]
                           [--address IP] [--user USER:PASSWORD]... [--token-lifetime D] [--seed]

Starts a distribution registry (Debian's docker-registry) as a detached
process on a loopback address, under its own hostname (an /etc/hosts line
marked "# credprov:registry/<name>"), with the auth you pick:
  none       anonymous pull and push
  htpasswd   Basic auth, bcrypt htpasswd (changing users restarts the registry)
  token      Bearer tokens from credprov's token server (GET+Basic and OAuth2 POST)

Without --user a user "credprov" with a random password is created. Passwords
are never printed: they are in "credentialsFile" (mode 0600), which also holds
a docker config.json-style "auths" entry for the registry host.

The last stdout line is JSON:
  {"name","url","host","auth","realm"?,"caFile"?,"credentialsFile"?,"users"?,"images"?}
Stop it with 'credprov registry down --name N'.

Flags:
  --name N             registry name (default "default"): [a-z0-9-]
  --provider P         process (default: Debian's docker-registry as a process) or container
                       (the same binary in a locally built image, run by Docker with host networking)
  --auth MODE          none | htpasswd | token (default htpasswd)
  --tls                serve https with a credprov CA (caFile in the output)
  --host HOSTNAME      name in image references (default registry.test, or <name>.registry.test)
  --port PORT          default: the first free port from 5000
  --address IP         loopback address to bind and map the host to (default 127.0.0.1)
  --user USER:PASS     a user (repeatable)
  --token-lifetime D   token lifetime, e.g. 5m or 30s (token mode; default 5m)
  --seed               push the test images (credprov/busybox, credprov/pause) and list them
`,
  async run(argv, ctx) {
    const { values } = parseFlags<{
      name?: string;
      provider?: string;
      auth?: string;
      tls?: boolean;
      host?: string;
      port?: string;
      address?: string;
      user?: string[];
      'token-lifetime'?: string;
      seed?: boolean;
    }>('registry up', argv, {
      name: { type: 'string' },
      provider: { type: 'string' },
      auth: { type: 'string' },
      tls: { type: 'boolean' },
      host: { type: 'string' },
      port: { type: 'string' },
      address: { type: 'string' },
      user: { type: 'string', multiple: true },
      'token-lifetime': { type: 'string' },
      seed: { type: 'boolean' },
    });
    const name = values.name ?? 'default';
    if (!NAME_RE.test(name))
      throw new UsageError(`registry up: --name '${name}' must be lowercase letters, digits and dashes (at most 32)`);
    if (values.provider !== undefined && values.provider !== 'process' && values.provider !== 'container')
      throw new UsageError(`registry up: --provider ${values.provider} is not one of process, container`);
    const mode = (values.auth ?? 'htpasswd') as (typeof MODES)[number];
    if (!MODES.includes(mode))
      throw new UsageError(`registry up: --auth ${values.auth} is not one of ${MODES.join(', ')}`);
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536))
      throw new UsageError(`registry up: --port ${values.port} is not a port number`);
    const address = values.address ?? '127.0.0.1';
    if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address))
      throw new UsageError(`registry up: --address ${address} must be a loopback address (127.x.y.z)`);
    if (values.host !== undefined && !isHostname(values.host) && !isIP(values.host)) {
      throw new UsageError(
        `registry up: --host '${values.host}' is not a hostname (letters, digits and dashes, in dot-separated labels)`,
        { hint: 'e.g. --host registry.test; it goes into image references and /etc/hosts' },
      );
    }
    // Checked here rather than after a failed start: the error then names the flag, and nothing was started.
    if (port !== undefined && !(await portFree(address, port))) {
      throw new UsageError(`registry up: --port ${port}: ${address}:${port} is already in use`, {
        hint: 'pick another --port, or leave it out for the first free one from 5000',
      });
    }
    if (mode === 'none' && values.user?.length)
      throw new UsageError('registry up: --user needs --auth htpasswd or token');
    const users: User[] = (values.user ?? []).map((u) => {
      const parsed = parseUserFlag(u);
      if (!parsed) throw new UsageError(`registry up: --user '${u.replace(/:.*/, ':…')}' must be USER:PASSWORD`);
      return parsed;
    });
    if (mode !== 'none' && users.length === 0) users.push(generatedUser());
    let lifetimeSeconds: number | undefined;
    if (values['token-lifetime'] !== undefined) {
      const ms = parseGoDuration(values['token-lifetime']);
      if (ms === undefined || ms < 1000)
        throw new UsageError(
          `registry up: --token-lifetime ${values['token-lifetime']} must be a duration of at least 1s (e.g. 30s, 5m)`,
        );
      lifetimeSeconds = Math.round(ms / 1000);
    }
    const auth: AuthSpec =
      mode === 'none'
        ? Auth.none()
        : mode === 'htpasswd'
          ? Auth.htpasswd(users)
          : Auth.token({ users, ...(lifetimeSeconds ? { lifetimeSeconds } : {}) });

    const dir = join(registriesDir(ctx.env), name);
    const existing = (await listStates(ctx.env)).find((s) => s.dir === dir);
    if (existing?.running) {
      throw new UsageError(`registry up: a registry named '${name}' is already running at ${existing.state?.url}`, {
        hint: `credprov registry down --name ${name}`,
      });
    }
    // A crashed run's leftovers (dead pids, hosts line, dir) are cleared before reuse.
    if (existing?.state) {
      const docker = existing.state.docker;
      await teardown(existing.state, {
        logger: ctx.log,
        ...(docker ? { removeContainer: (id: string) => removeContainer(docker, id) } : {}),
      });
    }

    const progress = stderrProgress();
    let reg: StartedRegistry | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      process.stderr.write('\ninterrupted: removing the half-started registry\n');
      const exitCode = interruptExitCode(signal);
      void readState(dir)
        .then((s) => (s ? teardown(s) : undefined))
        .finally(() => {
          announceInterrupt(ctx)(exitCode, signal);
          process.exit(exitCode);
        });
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const provider =
        values.provider === 'container' ? containerProvider({ logger: ctx.log }) : processProvider({ logger: ctx.log });
      reg = await provider.start({
        name,
        auth,
        tls: !!values.tls,
        dir,
        detached: true,
        address,
        hostname: values.host ?? defaultHostname(name),
        ...(port ? { port } : {}),
        progress,
        logger: ctx.log,
      });
      const images: string[] = [];
      if (values.seed) {
        await step(progress, 'seed test images', async () => {
          images.push(await reg!.push(await busyboxImage()));
          images.push(await reg!.push(await pauseImage()));
        });
      }
      let credentialsFile: string | undefined;
      if (mode !== 'none') {
        credentialsFile = join(dir, 'credentials.json');
        const first = users[0]!;
        await writeFile(
          credentialsFile,
          `${JSON.stringify(
            {
              registry: reg.host,
              users: users.map((u) => ({ username: u.username, password: u.password })),
              auths: {
                [reg.host]: {
                  username: first.username,
                  password: first.password,
                  auth: Buffer.from(`${first.username}:${first.password}`).toString('base64'),
                },
              },
            },
            null,
            2,
          )}\n`,
          { mode: 0o600 },
        );
      }
      const state = await readState(dir);
      if (state)
        await writeState({
          ...state,
          ...(credentialsFile ? { credentialsFile } : {}),
          ...(images.length ? { images } : {}),
        });
      ctx.stdout(
        `${JSON.stringify({
          name,
          url: reg.url,
          host: reg.host,
          auth: mode,
          ...(reg.auth.realm ? { realm: reg.auth.realm } : {}),
          ...(reg.caCertPath ? { caFile: reg.caCertPath } : {}),
          ...(credentialsFile ? { credentialsFile, users: users.map((u) => u.username) } : {}),
          ...(images.length ? { images } : {}),
        })}\n`,
      );
      return 0;
    } catch (err) {
      if (reg) await reg.stop().catch(() => {});
      throw wrap(err, 'registry up');
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
