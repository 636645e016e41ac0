// The cluster's certificates and kubeconfigs (admin, each node's kubelet, the controllers).
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makePki } from '../certs.ts';
import { writeKubeconfig } from '../kubeconfig.ts';
import type { Step } from '../context.ts';

export const makePkiStep: Step = {
  name: 'certificates',
  async run(ctx) {
    const second = ctx.state.secondNode;
    const pki = await makePki(ctx.layout.certs, [ctx.state.spec.kubelet.nodeName, second?.name]);
    Object.assign(ctx.pki, pki);
    await writeKubeconfig(ctx.layout.adminKubeconfig, {
      server: ctx.apiServerUrl,
      caFile: pki.caCert,
      certFile: pki.adminCert,
      keyFile: pki.adminKey,
      user: 'credprov-admin',
    });
    await writeKubeconfig(ctx.layout.kubeletKubeconfig, {
      server: ctx.apiServerUrl,
      caFile: pki.caCert,
      certFile: pki.kubeletCert,
      keyFile: pki.kubeletKey,
      user: `system:node:${ctx.state.spec.kubelet.nodeName}`,
    });
    if (second) {
      await mkdir(dirname(ctx.layout.second.kubeletKubeconfig), { recursive: true });
      await writeKubeconfig(ctx.layout.second.kubeletKubeconfig, {
        server: ctx.apiServerUrl,
        caFile: pki.caCert,
        certFile: pki.secondKubeletCert,
        keyFile: pki.secondKubeletKey,
        user: `system:node:${second.name}`,
      });
    }
    await writeKubeconfig(ctx.layout.controllerManagerKubeconfig, {
      server: ctx.apiServerUrl,
      caFile: pki.caCert,
      certFile: pki.controllerManagerCert,
      keyFile: pki.controllerManagerKey,
      user: 'system:kube-controller-manager',
    });
    await writeKubeconfig(ctx.layout.schedulerKubeconfig, {
      server: ctx.apiServerUrl,
      caFile: pki.caCert,
      certFile: pki.schedulerCert,
      keyFile: pki.schedulerKey,
      user: 'system:kube-scheduler',
    });
  },
};
