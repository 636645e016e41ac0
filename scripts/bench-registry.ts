// Registry timings: up and down of a registry per auth mode, image build,
// first push and re-push, and the CLI's detached up/down. With --provider
// container, also the private dockerd's start and stop, testcontainers' load,
// and the registry image's build into the empty daemon.
// Run: node scripts/bench-registry.ts [--runs N] [--provider process|container]
//   (root; needs docker-registry, and docker.io for the container provider)
// Prints a table on stderr and one JSON object on stdout.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import {
  Auth,
  busyboxImage,
  containerProvider,
  DEFAULT_BINARY,
  ensureRegistryImage,
  processProvider,
  type AuthSpec,
  type RegistryProvider,
  type StartedRegistry,
} from '../registry/index.ts';
import { dockerRuntime } from '../src/engine/docker-runtime.ts';
import { PrivateDockerd } from '../src/engine/dockerd.ts';

const flag = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const runs = Number(flag('--runs')) || 5;
const kind = flag('--provider') ?? 'process';
if (kind !== 'process' && kind !== 'container') throw new Error(`--provider ${kind} is not one of process, container`);
const user = { username: 'bench', password: 'bench-password' };
const live = new Set<StartedRegistry>();
let dockerd: PrivateDockerd | undefined;
const stopAll = async () => {
  await Promise.all([...live].map((r) => r.stop()));
  await dockerd?.stop();
};
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => void stopAll().finally(() => process.exit(130)));

const timings: Record<string, number[]> = {};
const time = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const v = await fn();
  (timings[label] ??= []).push(performance.now() - t0);
  return v;
};

const modes: Array<[string, () => AuthSpec, boolean]> = [
  ['none', () => Auth.none(), false],
  ['htpasswd', () => Auth.htpasswd([user]), false],
  ['token', () => Auth.token({ users: [user] }), false],
  ['token+tls', () => Auth.token({ users: [user] }), true],
];

let provider: RegistryProvider = processProvider();
try {
  if (kind === 'container') {
    dockerd = await time('private dockerd start', () => PrivateDockerd.start());
    const rt = await time('testcontainers load + connect', () => dockerRuntime(dockerd!.host));
    await time('registry image build (empty daemon)', () => ensureRegistryImage(rt, DEFAULT_BINARY));
    provider = containerProvider({ dockerHost: dockerd.host });
  }
  for (let i = 0; i < runs; i++) {
    const image = await time('build busybox image', () => busyboxImage());
    for (const [label, auth, tls] of modes) {
      const reg = await time(`up ${label}`, () =>
        provider.start({ name: 'bench', hostname: 'bench.registry.test', auth: auth(), tls }),
      );
      live.add(reg);
      await time(`push ${label} (first)`, () => reg.push(image));
      await time(`push ${label} (again, blobs present)`, () => reg.push(image));
      await time(`down ${label}`, () => reg.stop());
      live.delete(reg);
    }
    const state = await mkdtemp(join(tmpdir(), 'credprov-bench-'));
    const cli = (...a: string[]) =>
      execa(process.execPath, [join(import.meta.dirname, '..', 'bin', 'credprov.js'), 'registry', ...a], {
        env: { CREDPROV_STATE_DIR: state, ...(dockerd ? { DOCKER_HOST: dockerd.host } : {}) },
      });
    await time('CLI registry up --auth htpasswd (detached, incl. node start)', () =>
      cli('up', '--name', 'bench-cli', '--auth', 'htpasswd', '--provider', kind),
    );
    await time('CLI registry down', () => cli('down', '--name', 'bench-cli'));
    await rm(state, { recursive: true, force: true });
  }
} finally {
  await Promise.all([...live].map((r) => r.stop()));
  if (dockerd) await time('private dockerd stop', () => dockerd!.stop());
}

const stats = Object.fromEntries(
  Object.entries(timings).map(([k, v]) => {
    const s = [...v].sort((a, b) => a - b);
    return [
      k,
      {
        runs: s.length,
        medianMs: Math.round(s[Math.floor(s.length / 2)]!),
        minMs: Math.round(s[0]!),
        maxMs: Math.round(s.at(-1)!),
      },
    ];
  }),
);
const width = Math.max(...Object.keys(stats).map((k) => k.length));
process.stderr.write(`${'step'.padEnd(width)}  median     min     max  (ms, ${runs} runs, ${kind} provider)\n`);
for (const [k, s] of Object.entries(stats))
  process.stderr.write(
    `${k.padEnd(width)}  ${String(s.medianMs).padStart(6)}  ${String(s.minMs).padStart(6)}  ${String(s.maxMs).padStart(6)}\n`,
  );
process.stdout.write(`${JSON.stringify({ runs, provider: kind, stats })}\n`);
