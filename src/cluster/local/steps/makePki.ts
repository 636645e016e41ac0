// The cluster's certificates and kubeconfigs (admin and kubelet).
import { makePki } from '../certs.ts';
import { writeKubeconfig } from '../kubeconfig.ts';
import type { Step } from '../context.ts';

export const makePkiStep: Step = {
  name: 'certificates',
  async run(ctx) {
    const pki = await makePki(ctx.layout.certs, ctx.state.spec.kubelet.nodeName);
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
