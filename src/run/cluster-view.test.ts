import { describe, expect, test } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterOf } from './cluster-view.ts';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('clusterOf', () => {
  test('reads the server and the CA from a file or from inline data, and gives both forms of the CA', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-cluster-view-'));
    try {
      await writeFile(join(dir, 'ca.crt'), PEM);
      await writeFile(
        join(dir, 'file.kubeconfig'),
        `clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:6443\n    certificate-authority: ${join(dir, 'ca.crt')}\n`,
      );
      const data = Buffer.from(PEM).toString('base64');
      await writeFile(
        join(dir, 'data.kubeconfig'),
        `clusters:\n- name: c\n  cluster:\n    server: https://10.0.0.1:6443\n    certificate-authority-data: ${data}\n`,
      );
      expect(await clusterOf({ kubeconfig: join(dir, 'file.kubeconfig') })).toEqual({
        server: 'https://127.0.0.1:6443',
        caPem: PEM,
        caData: data,
      });
      expect(await clusterOf({ kubeconfig: join(dir, 'data.kubeconfig') })).toEqual({
        server: 'https://10.0.0.1:6443',
        caPem: PEM,
        caData: data,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a kubeconfig without a server or a CA is an error that names the file and the field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-cluster-view-'));
    try {
      const file = join(dir, 'bad.kubeconfig');
      await writeFile(file, 'clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:6443\n');
      await expect(clusterOf({ kubeconfig: file })).rejects.toThrow(`${file}: clusters[0].cluster names no CA`);
      await writeFile(file, 'clusters: []\n');
      await expect(clusterOf({ kubeconfig: file })).rejects.toThrow(`${file}: clusters[0].cluster.server is missing`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
