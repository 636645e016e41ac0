// The local cluster's PKI, made with openssl: one CA, the API server's serving
// cert, client certs (admin in system:masters, the kubelet as system:node:<n>,
// the API server's client for kubelet calls, the controller-manager and the
// scheduler), one loopback serving cert for the controllers' health endpoints,
// and the service-account signing keypair. EC P-256 keys: fast to generate on a 2-core box.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import { CommandError } from '../../core/errors.ts';

export interface Pki {
  caCert: string;
  caKey: string;
  apiserverCert: string;
  apiserverKey: string;
  adminCert: string;
  adminKey: string;
  kubeletCert: string;
  kubeletKey: string;
  /** The second node's kubelet: system:node:<its name>. */
  secondKubeletCert: string;
  secondKubeletKey: string;
  apiserverKubeletClientCert: string;
  apiserverKubeletClientKey: string;
  controllerManagerCert: string;
  controllerManagerKey: string;
  schedulerCert: string;
  schedulerKey: string;
  /** 127.0.0.1 serving cert for kube-controller-manager and kube-scheduler (they would write self-signed ones to /var/run/kubernetes). */
  loopbackServingCert: string;
  loopbackServingKey: string;
  saKey: string;
  saPub: string;
}

interface Leaf {
  name: string;
  subject: string;
  usage: 'server' | 'client';
  sans?: string[];
}

/** `nodes`: the first node's name, then the second's (each kubelet gets its own client certificate). */
export async function makePki(dir: string, nodes: [string, string?]): Promise<Pki> {
  const [nodeName, secondNode] = nodes;
  await mkdir(dir, { recursive: true });
  const f = (n: string) => join(dir, n);
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
    '-days',
    '3650',
    '-subj',
    '/CN=credprov-local-ca',
  ]);
  const leaves: Leaf[] = [
    {
      name: 'apiserver',
      subject: '/CN=kube-apiserver',
      usage: 'server',
      sans: [
        'IP:127.0.0.1',
        'DNS:localhost',
        'DNS:kubernetes',
        'DNS:kubernetes.default',
        'DNS:kubernetes.default.svc',
        'IP:10.0.0.1',
      ],
    },
    { name: 'admin', subject: '/O=system:masters/CN=credprov-admin', usage: 'client' },
    { name: 'kubelet', subject: `/O=system:nodes/CN=system:node:${nodeName}`, usage: 'client' },
    ...(secondNode
      ? [{ name: 'kubelet-b', subject: `/O=system:nodes/CN=system:node:${secondNode}`, usage: 'client' as const }]
      : []),
    // The API server calls the kubelet (logs, exec) as this user; system:masters passes the kubelet's webhook authorization.
    {
      name: 'apiserver-kubelet-client',
      subject: '/O=system:masters/CN=kube-apiserver-kubelet-client',
      usage: 'client',
    },
    // The bootstrap RBAC policy binds these user names to their components' roles.
    { name: 'controller-manager', subject: '/CN=system:kube-controller-manager', usage: 'client' },
    { name: 'scheduler', subject: '/CN=system:kube-scheduler', usage: 'client' },
    { name: 'loopback-serving', subject: '/CN=localhost', usage: 'server', sans: ['IP:127.0.0.1', 'DNS:localhost'] },
  ];
  await Promise.all(leaves.map((l) => leaf(dir, l)));
  await openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', f('sa.key')]);
  await openssl(['pkey', '-in', f('sa.key'), '-pubout', '-out', f('sa.pub')]);
  return pkiPaths(dir);
}

export function pkiPaths(dir: string): Pki {
  const f = (n: string) => join(dir, n);
  return {
    caCert: f('ca.crt'),
    caKey: f('ca.key'),
    apiserverCert: f('apiserver.crt'),
    apiserverKey: f('apiserver.key'),
    adminCert: f('admin.crt'),
    adminKey: f('admin.key'),
    kubeletCert: f('kubelet.crt'),
    kubeletKey: f('kubelet.key'),
    secondKubeletCert: f('kubelet-b.crt'),
    secondKubeletKey: f('kubelet-b.key'),
    apiserverKubeletClientCert: f('apiserver-kubelet-client.crt'),
    apiserverKubeletClientKey: f('apiserver-kubelet-client.key'),
    controllerManagerCert: f('controller-manager.crt'),
    controllerManagerKey: f('controller-manager.key'),
    schedulerCert: f('scheduler.crt'),
    schedulerKey: f('scheduler.key'),
    loopbackServingCert: f('loopback-serving.crt'),
    loopbackServingKey: f('loopback-serving.key'),
    saKey: f('sa.key'),
    saPub: f('sa.pub'),
  };
}

async function leaf(dir: string, l: Leaf): Promise<void> {
  const f = (ext: string) => join(dir, `${l.name}.${ext}`);
  const ext = [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${l.usage === 'server' ? 'serverAuth' : 'clientAuth'}`,
    ...(l.sans ? [`subjectAltName=${l.sans.join(',')}`] : []),
  ].join('\n');
  await writeFile(f('ext'), `${ext}\n`);
  await openssl([
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    f('key'),
    '-out',
    f('csr'),
    '-subj',
    l.subject,
  ]);
  await openssl([
    'x509',
    '-req',
    '-in',
    f('csr'),
    '-CA',
    join(dir, 'ca.crt'),
    '-CAkey',
    join(dir, 'ca.key'),
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    '-days',
    '365',
    '-out',
    f('crt'),
    '-extfile',
    f('ext'),
  ]);
}

async function openssl(args: string[]): Promise<void> {
  const r = await execa('openssl', args, { reject: false, all: true });
  if (r.exitCode !== 0 || r.failed) {
    const missing = (r as { code?: string }).code === 'ENOENT';
    throw new CommandError(`openssl ${args[0]} failed`, {
      argv: ['openssl', ...args],
      output: String(r.all ?? ''),
      ...(missing ? { hint: 'install openssl (apt-get install openssl)' } : {}),
    });
  }
}
