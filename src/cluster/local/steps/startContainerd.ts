// containerd, one per node, with its own root, state and socket under the environment dir,
// the CRI plugin on cgroupfs (the host is cgroup v1, no systemd), overlayfs,
// the pinned sandbox image, and `config_path` pointing at a certs.d tree the
// registry helpers write hosts.toml files into.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { startDaemon, waitFor } from '../daemon.ts';
import type { Step, StepContext } from '../context.ts';

/** Version 2 config: containerd 1.6/1.7 read it natively and 2.x migrates it on load. */
export function containerdConfig(ctx: StepContext): string {
  const l = ctx.node.files;
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  const q = JSON.stringify;
  return [
    'version = 2',
    `root = ${q(l.containerdRoot)}`,
    `state = ${q(l.containerdState)}`,
    '',
    '[grpc]',
    `  address = ${q(l.containerdSocket)}`,
    '',
    // Nothing else on the host should be able to reach our containerd's ttrpc or metrics.
    '[ttrpc]',
    `  address = ${q(`${l.containerdSocket}.ttrpc`)}`,
    '',
    // NRI's socket is host-wide by default (/var/run/nri/nri.sock): a second containerd (the other node's, another
    // environment's) failed its CRI start with "address already in use". Each containerd gets its own.
    '[plugins."io.containerd.nri.v1.nri"]',
    `  socket_path = ${q(`${l.containerdSocket}.nri`)}`,
    '',
    `[${cri}]`,
    `  sandbox_image = ${q(ctx.state.sandboxImageRef)}`,
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    // Without CAP_SYS_RESOURCE (containers, sandboxed CI) runc cannot lower oom_score_adj below
    // containerd's own, and pod sandboxes (-998) fail with "can't get final child's PID from pipe".
    '  restrict_oom_score_adj = true',
    `  [${cri}.containerd]`,
    '    snapshotter = "overlayfs"',
    '    default_runtime_name = "runc"',
    `    [${cri}.containerd.runtimes.runc]`,
    '      runtime_type = "io.containerd.runc.v2"',
    `      [${cri}.containerd.runtimes.runc.options]`,
    '        SystemdCgroup = false',
    `  [${cri}.cni]`,
    '    bin_dir = "/usr/lib/cni"',
    `    conf_dir = ${q(l.cniConf)}`,
    `  [${cri}.registry]`,
    `    config_path = ${q(l.certsD)}`,
    '',
  ].join('\n');
}

/** A bridge + host-local network on a private subnet, plus loopback: enough for the node to report NetworkReady. */
export function cniConflist(network: string, bridge: string, subnet: string): string {
  return JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: network,
      plugins: [
        {
          type: 'bridge',
          bridge,
          isGateway: true,
          ipMasq: false,
          ipam: { type: 'host-local', ranges: [[{ subnet }]], routes: [{ dst: '0.0.0.0/0' }] },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  );
}

export const startContainerd: Step = {
  name: 'start containerd',
  async run(ctx) {
    const l = ctx.node.files;
    await Promise.all(
      [l.containerdRoot, l.containerdState, l.certsD, l.cniConf].map((d) => mkdir(d, { recursive: true })),
    );
    await writeFile(l.containerdConfig, containerdConfig(ctx));
    await writeFile(
      join(l.cniConf, '10-credprov.conflist'),
      cniConflist(ctx.node.cniNetwork, ctx.node.cniBridge, ctx.node.podSubnet),
    );
    await writeFile(
      join(l.cniConf, '99-loopback.conf'),
      JSON.stringify({ cniVersion: '1.0.0', name: 'lo', type: 'loopback' }),
    );
    const b = ctx.state.binaries;
    const daemon = await startDaemon(
      {
        name: ctx.node.daemons.containerd,
        bin: b.containerd,
        args: ['--config', l.containerdConfig, '--log-level', 'info'],
        env: { PATH: `${b.runtimePath}:${process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'}` },
      },
      ctx.layout,
      ctx.log,
    );
    await waitFor(
      `${ctx.node.daemons.containerd} to answer on its socket`,
      async () => {
        const r = await execa(b.ctr, ['--address', l.containerdSocket, 'version'], { reject: false, timeout: 3000 });
        return r.exitCode === 0;
      },
      { timeoutMs: 30_000, daemon, signal: ctx.signal },
    );
  },
};
