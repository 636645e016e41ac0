// The command table. Each entry loads its module only when used, so one
// command's heavy imports never slow another.
import type { Command } from './command.ts';

export interface CommandEntry {
  path: string[];
  summary: string;
  load: () => Promise<{ command: Command }>;
}

export const COMMANDS: CommandEntry[] = [
  {
    path: ['certify', 'kubelet-plugin'],
    summary: 'check a kubelet image credential provider plugin against the KEP-2133/KEP-4412 contract',
    load: () => import('./certify-kubelet-plugin.ts'),
  },
  {
    path: ['certify', 'exec-plugin'],
    summary: 'check a client-go exec credential plugin against the KEP-541 contract',
    load: () => import('./certify-exec-plugin.ts'),
  },
  {
    path: ['explain'],
    summary: 'say which providers and matchImages patterns match an image, and why not',
    load: () => import('./explain.ts'),
  },
  {
    path: ['match'],
    summary: "print true/false: does a pattern match an image, by the kubelet's rules",
    load: () => import('./match.ts'),
  },
  {
    path: ['validate-config'],
    summary: 'would a kubelet of version V accept this CredentialProviderConfig?',
    load: () => import('./validate-config.ts'),
  },
  {
    path: ['registry', 'up'],
    summary: 'start an authenticated local registry that outlives the command',
    load: () => import('./registry-up.ts'),
  },
  {
    path: ['registry', 'down'],
    summary: 'stop registries started by credprov',
    load: () => import('./registry-down.ts'),
  },
  { path: ['registry', 'ls'], summary: 'list registries started by credprov', load: () => import('./registry-ls.ts') },
  { path: ['up'], summary: 'bring up a cluster environment (local processes or kind)', load: () => import('./up.ts') },
  {
    path: ['down'],
    summary: 'tear down the environment: no process, mount or state left behind',
    load: () => import('./down.ts'),
  },
  {
    path: ['binaries', 'ensure'],
    summary: 'fetch or build kubelet, kube-apiserver, kubectl (and containerd) of a version into the cache',
    load: () => import('./binaries-ensure.ts'),
  },
  {
    path: ['kind', 'image', 'build'],
    summary: "build credprov's offline kind node image for a Kubernetes version",
    load: () => import('./kind-image-build.ts'),
  },
  {
    path: ['binaries', 'ls'],
    summary: 'list the kube binaries and containerd builds in the cache',
    load: () => import('./binaries-ls.ts'),
  },
  {
    path: ['clients', 'ls'],
    summary: 'list the exec-plugin clients (kubectl, client-go, client-node, python) this machine can run',
    load: () => import('./clients-ls.ts'),
  },
  {
    path: ['clients', 'ensure'],
    summary: 'build the client-go probe for a Kubernetes version and list the exec-plugin clients',
    load: () => import('./clients-ensure.ts'),
  },
  {
    path: ['doctor'],
    summary: 'list what each environment provider needs and what this machine has',
    load: () => import('./doctor.ts'),
  },
  {
    path: ['run'],
    summary: 'run conformance suites against the environment and write a report',
    load: () => import('./run.ts'),
  },
  {
    path: ['qualify'],
    summary: 'run suites against several Kubernetes versions and write a suite × version matrix',
    load: () => import('./qualify.ts'),
  },
  {
    path: ['report', 'merge'],
    summary: "join the report dirs of 'qualify --shard I/N' runs into one suite × version matrix",
    load: () => import('./report-merge.ts'),
  },
];
