// What runs inside the build container, as kind's base Dockerfile and
// buildcontext.go do it: kind's own files (images/base/files), the units it
// enables and the wants it removes, the kube binaries in /usr/bin, containerd
// in /usr/local/bin, /kind/version, the manifests kind applies, then the
// control-plane images imported into containerd's k8s.io namespace with
// kind's flags (pinned, not unpacked).
//
// Two choices of credprov's, each said in the file it writes:
// - a static CNI config (Debian's bridge plugin) instead of kindnetd, whose
//   image cannot be built here: pods get addresses, nodes become Ready, and no
//   pod traffic crosses nodes (credential tests need none);
// - no default StorageClass (local-path-provisioner's image cannot be built
//   here either; no credential test uses volumes).
// And a safety net: registry hosts no test configures resolve to a closed
// port on loopback, so a pull of an image nobody provided fails at once
// instead of reaching the internet.

/** Paths inside the build container's input mount. */
export const BUILD_INPUT = '/kind/credprov-build';

export interface SetupInputs {
  kubeVersion: string;
  /** kubeadm's pause image: containerd's sandbox image. */
  pauseImage: string;
}

/** The CNI config every node carries. */
export function staticCniConfig(): string {
  return `${JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: 'credprov',
      plugins: [
        {
          type: 'bridge',
          bridge: 'cni0',
          isGateway: true,
          ipMasq: false,
          ipam: { type: 'host-local', ranges: [[{ subnet: '10.244.0.0/24' }]] },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  )}\n`;
}

/** kind applies /kind/manifests/default-cni.yaml and default-storage.yaml; with no kindnetd and no storage, each holds a note. */
export function placeholderManifest(name: string, why: string): string {
  return [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    `  name: credprov-${name}`,
    '  namespace: kube-system',
    'data:',
    `  why: ${JSON.stringify(why)}`,
    '',
  ].join('\n');
}

/** containerd's fallback for hosts without their own certs.d dir: a closed port, so nothing is fetched from outside. */
export const DEFAULT_HOSTS_TOML = 'server = "https://127.0.0.1:9"\n';

export function setupScript(i: SetupInputs): string {
  const input = BUILD_INPUT;
  return `set -eu
cp -a ${input}/files/. /
chmod 755 /usr/local/bin/* /kind /kind/bin /kind/bin/*
# kind's base Dockerfile
find /lib/systemd/system/sysinit.target.wants/ -name systemd-tmpfiles-setup.service -delete
rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* /lib/systemd/system/local-fs.target.wants/*
rm -f /lib/systemd/system/sockets.target.wants/*udev* /lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/*
echo "ReadKMsg=no" >> /etc/systemd/journald.conf
ln -sf /usr/lib/systemd/systemd /sbin/init
systemctl enable kubelet.service containerd.service undo-mount-hacks.service
systemctl mask systemd-binfmt.service
mkdir -p /etc/kubernetes/manifests /opt/cni /etc/cni/net.d /etc/containerd/certs.d/_default
ln -sfn /usr/lib/cni /opt/cni/bin
for b in kubelet kubeadm kubectl; do install -m 0755 ${input}/bin/$b /usr/bin/$b; done
for b in containerd ctr containerd-shim-runc-v2; do install -m 0755 ${input}/bin/$b /usr/local/bin/$b; done
ctr oci spec | jq '.hooks.createContainer[.hooks.createContainer| length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' | jq 'del(.process.rlimits)' > /etc/containerd/cri-base.json
sed -i 's#sandbox_image = .*#sandbox_image = "${i.pauseImage}"#' /etc/containerd/config.toml
# Lowering a process's oom_score_adj needs CAP_SYS_RESOURCE, which nodes lack where the host's bounding set
# does: containerd then keeps each container's at or above its own (a no-op where it runs at -999).
sed -i 's#restrict_oom_score_adj = false#restrict_oom_score_adj = true#' /etc/containerd/config.toml
printf '%s\\n' '${i.kubeVersion}' > /kind/version
# containerd, just long enough to import the control-plane images
nohup containerd > /tmp/credprov-build-containerd.log 2>&1 &
for i in $(seq 1 100); do [ -S /run/containerd/containerd.sock ] && ctr info > /dev/null 2>&1 && break; sleep 0.1; done
for f in ${input}/images/*.tar; do
  ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned --all-platforms --no-unpack --digests "$f"
done
ctr --namespace=k8s.io images list -q
pkill containerd
for i in $(seq 1 100); do pgrep -x containerd > /dev/null || break; sleep 0.1; done
rm -rf /tmp/credprov-build-containerd.log /run/containerd /var/lib/apt/lists/*
`;
}
