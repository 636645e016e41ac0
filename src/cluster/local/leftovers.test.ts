import { describe, expect, test } from '@jest/globals';
import { addressesIn, describeLeftovers, isClean, LEFTOVER_KINDS, mountsUnder, type Leftovers } from './leftovers.ts';
import { hostIdentity } from './identity.ts';

describe('hostIdentity', () => {
  test('derives every host-wide name from the environment name alone, stable across processes', () => {
    expect(hostIdentity('default')).toEqual(hostIdentity('default'));
    const a = hostIdentity('hsoak-a');
    const b = hostIdentity('hsoak-ab');
    expect(a.cniBridge).not.toBe(b.cniBridge);
    expect(a.cniBridge.length).toBeLessThanOrEqual(15);
    expect(a.nodeLink.length).toBeLessThanOrEqual(15);
    expect(a.cniNetwork).toBe('credprov-hsoak-a');
    expect(a.cgroupRoot).toBe('credprov-hsoak-a');
    expect(a.podSubnet).toMatch(/^10\.\d+\.\d+\.0\/24$/);
  });
});

describe('addressesIn', () => {
  const out =
    '1: lo    inet 127.0.0.1/8 scope host lo\n3: eth0    inet 10.222.66.3/24 brd 10.222.66.255 scope global eth0';
  test('finds an address inside the pod subnet', () => {
    expect(addressesIn(out, '10.222.66.0/24')).toBe(true);
  });
  test("an address in a neighbouring subnet is someone else's pod", () => {
    expect(addressesIn(out, '10.222.67.0/24')).toBe(false);
    expect(addressesIn('', '10.222.66.0/24')).toBe(false);
  });
});

describe('leftover reports', () => {
  const clean = Object.fromEntries(LEFTOVER_KINDS.map((k) => [k, []])) as unknown as Leftovers;
  test('clean means every kind is empty', () => {
    expect(isClean(clean)).toBe(true);
    expect(isClean({ ...clean, cniState: ['/var/lib/cni/networks/credprov-x'] })).toBe(false);
  });
  test('one line per item, named by kind', () => {
    expect(describeLeftovers({ ...clean, links: ['cp1234'], processes: ['12 /pause'] })).toEqual([
      'processes: 12 /pause',
      'links: cp1234',
    ]);
  });
  test('mounts under the state dir are listed deepest first; a sibling with the same prefix is not ours', () => {
    const info = [
      '1 0 0:1 / /root/env/a rw - tmpfs t rw',
      '2 1 0:2 / /root/env/a/data/kubelet rw - tmpfs t rw',
      '3 0 0:3 / /root/env/ab rw - tmpfs t rw',
    ].join('\n');
    expect(mountsUnder(info, ['/root/env/a'])).toEqual(['/root/env/a/data/kubelet', '/root/env/a']);
  });
});
