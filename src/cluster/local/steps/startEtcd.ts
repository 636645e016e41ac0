// etcd on loopback ports, data under the environment's data dir.
import { mkdir } from 'node:fs/promises';
import { get } from '../net.ts';
import { startDaemon, waitFor } from '../daemon.ts';
import type { Step } from '../context.ts';

export const startEtcd: Step = {
  name: 'start etcd',
  async run(ctx) {
    const { etcdClient, etcdPeer } = ctx.state.ports;
    await mkdir(ctx.layout.etcdData, { recursive: true, mode: 0o700 });
    const client = `http://127.0.0.1:${etcdClient}`;
    const peer = `http://127.0.0.1:${etcdPeer}`;
    const daemon = await startDaemon(
      {
        name: 'etcd',
        bin: ctx.state.binaries.etcd,
        args: [
          '--name=credprov',
          `--data-dir=${ctx.layout.etcdData}`,
          `--listen-client-urls=${client}`,
          `--advertise-client-urls=${client}`,
          `--listen-peer-urls=${peer}`,
          `--initial-advertise-peer-urls=${peer}`,
          `--initial-cluster=credprov=${peer}`,
          // Throwaway data: skip the fsyncs that dominate start-up on slow disks.
          '--snapshot-count=10000',
        ],
        // Debian's etcd refuses non-amd64 hosts without this.
        env: { ETCD_UNSUPPORTED_ARCH: process.arch === 'x64' ? '' : process.arch === 'arm64' ? 'arm64' : process.arch },
      },
      ctx.layout,
      ctx.log,
    );
    await waitFor('etcd /health', async () => (await get(`${client}/health`)).status === 200, {
      timeoutMs: 30_000,
      daemon,
      signal: ctx.signal,
    });
  },
};
