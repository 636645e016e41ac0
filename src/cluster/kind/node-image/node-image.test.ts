import { describe, expect, test } from '@jest/globals';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listTar } from '../../../../registry/index.ts';
import { gunzipSync } from 'node:zlib';
import { useTempDir } from '../../../testing/tmp.ts';
import { inputsHash, REQUIRED_BINARIES, type NodeImageInputs } from './build.ts';
import { binaryImage, kubeadmImagesFrom } from './control-plane-images.ts';
import { setupScript, staticCniConfig } from './setup-script.ts';

const tmp = useTempDir('credprov-node-image-');

// What kubeadm v1.37.1 prints for `config images list --kubernetes-version v1.37.1` (seen on this machine).
const KUBEADM_1_37_1 = `registry.k8s.io/kube-apiserver:v1.37.1
registry.k8s.io/kube-controller-manager:v1.37.1
registry.k8s.io/kube-scheduler:v1.37.1
registry.k8s.io/kube-proxy:v1.37.1
registry.k8s.io/coredns/coredns:v1.14.6
registry.k8s.io/pause:3.10.2
registry.k8s.io/etcd:3.7.0-0
`;

describe('the offline kind node image', () => {
  test("takes the control-plane image names from kubeadm's own list, leaving out kube-proxy and CoreDNS", () => {
    expect(kubeadmImagesFrom(KUBEADM_1_37_1)).toEqual({
      'kube-apiserver': 'registry.k8s.io/kube-apiserver:v1.37.1',
      'kube-controller-manager': 'registry.k8s.io/kube-controller-manager:v1.37.1',
      'kube-scheduler': 'registry.k8s.io/kube-scheduler:v1.37.1',
      etcd: 'registry.k8s.io/etcd:3.7.0-0',
      pause: 'registry.k8s.io/pause:3.10.2',
    });
    expect(() => kubeadmImagesFrom('registry.k8s.io/pause:3.10.2\n')).toThrow(/names no kube-apiserver image/);
  });

  test("a control-plane image is one layer holding the binary on PATH, named as kubeadm's manifest names it", async () => {
    const bin = join(tmp(), 'kube-scheduler');
    writeFileSync(bin, 'ELF');
    const image = await binaryImage('registry.k8s.io/kube-scheduler:v1.37.1', 'kube-scheduler', bin);
    expect([image.name, image.tag]).toEqual(['kube-scheduler', 'v1.37.1']);
    expect(listTar(gunzipSync(image.layers[0]!.data)).map((e) => e.path)).toContain('usr/local/bin/kube-scheduler');
    const config = JSON.parse(image.config.data.toString()) as { config: { Env: string[] } };
    expect(config.config.Env).toEqual(['PATH=/usr/local/bin:/usr/bin:/bin']);
  });

  test('changes its inputs hash when a binary is rebuilt, and not otherwise', async () => {
    const dir = tmp();
    const binaries = Object.fromEntries(
      REQUIRED_BINARIES.map((n) => {
        writeFileSync(join(dir, n), n);
        return [n, join(dir, n)];
      }),
    );
    const inputs: NodeImageInputs = {
      kubeVersion: 'v1.37.1',
      binaries,
      images: kubeadmImagesFrom(KUBEADM_1_37_1),
      kindModuleDir: '/mod/kind',
      kindVersion: 'v0.33.0',
    };
    const before = await inputsHash(inputs, 'rootfs1');
    expect(await inputsHash(inputs, 'rootfs1')).toBe(before);
    expect(await inputsHash(inputs, 'rootfs2')).not.toBe(before);
    utimesSync(binaries.etcd!, new Date(), new Date(Date.now() + 5000));
    expect(await inputsHash(inputs, 'rootfs1')).not.toBe(before);
  });

  test('the static CNI config is a bridge with no masquerading, and the setup script sets the sandbox image kubeadm names', () => {
    const cni = JSON.parse(staticCniConfig()) as { plugins: Array<{ type: string; ipMasq?: boolean }> };
    expect(cni.plugins.map((p) => p.type)).toEqual(['bridge', 'portmap']);
    expect(cni.plugins[0]!.ipMasq).toBe(false);
    const script = setupScript({ kubeVersion: 'v1.37.1', pauseImage: 'registry.k8s.io/pause:3.10.2' });
    expect(script).toContain('sandbox_image = "registry.k8s.io/pause:3.10.2"');
    expect(script).toContain("printf '%s\\n' 'v1.37.1' > /kind/version");
    expect(script).toContain('--label=io.cri-containerd.pinned=pinned --all-platforms --no-unpack --digests');
  });
});
