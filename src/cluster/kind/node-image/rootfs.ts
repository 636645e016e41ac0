// The node image's Debian root filesystem: what kind's base image installs
// (images/base/Dockerfile), from Debian's archive with mmdebstrap, as a tarball
// cached by its inputs. Left out of kind's list, because credential tests use
// none of them: nfs-common, open-iscsi, fuse-overlayfs (rootless) and curl.
// runc and the CNI plugins come from Debian here (kind builds them from git).
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { CommandError, PrerequisiteError, tail } from '../../../core/errors.ts';

export const ROOTFS_SUITE = 'trixie';

export const ROOTFS_PACKAGES = [
  'systemd',
  'conntrack',
  'iptables',
  'nftables',
  'iproute2',
  'ethtool',
  'util-linux',
  'mount',
  'kmod',
  'libseccomp2',
  'pigz',
  'e2fsprogs',
  'bash',
  'ca-certificates',
  'jq',
  'procps',
  'runc',
  'containernetworking-plugins',
] as const;

export function rootfsKey(suite = ROOTFS_SUITE, packages: readonly string[] = ROOTFS_PACKAGES): string {
  return createHash('sha256')
    .update(`${suite}\n${[...packages].sort().join(',')}\nminbase`)
    .digest('hex')
    .slice(0, 16);
}

/** The cached tarball for these inputs, built with mmdebstrap on first use. */
export async function ensureRootfs(
  dir: string,
  o: { log?: (line: string) => void; signal?: AbortSignal } = {},
): Promise<{ tarball: string; key: string; built: boolean }> {
  const key = rootfsKey();
  const tarball = join(dir, `debian-${ROOTFS_SUITE}-${key}.tar`);
  if (
    await stat(tarball).then(
      (s) => s.isFile(),
      () => false,
    )
  )
    return { tarball, key, built: false };
  // Anything else under that name (a directory an older credprov left) is not a usable tarball.
  await rm(tarball, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const tmp = `${tarball}.${process.pid}.tmp`;
  // --format=tar said outright: mmdebstrap guesses the format from the target's name, and `.tmp` makes it a directory.
  const argv = [
    '--variant=minbase',
    '--mode=root',
    '--format=tar',
    `--include=${ROOTFS_PACKAGES.join(',')}`,
    ROOTFS_SUITE,
    tmp,
  ];
  const r = await execa('mmdebstrap', argv, {
    reject: false,
    all: true,
    ...(o.signal ? { cancelSignal: o.signal } : {}),
  });
  if ((r as { code?: string }).code === 'ENOENT')
    throw new PrerequisiteError('mmdebstrap is not installed (the kind node image is built from Debian with it)', {
      hint: 'apt-get install mmdebstrap (scripts/setup.sh --kind does)',
    });
  if (r.exitCode !== 0) {
    await rm(tmp, { recursive: true, force: true });
    throw new CommandError(`mmdebstrap ${ROOTFS_SUITE} failed (exit ${r.exitCode})`, {
      argv: ['mmdebstrap', ...argv],
      exitCode: r.exitCode ?? 1,
      output: tail(String(r.all), 30),
    });
  }
  await rename(tmp, tarball);
  return { tarball, key, built: true };
}
