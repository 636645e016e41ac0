// What kind leaves on this host beyond its node containers, and when it goes:
// the `kind` network, credprov's own engine, and the empty /lib/modules Docker
// creates for kind's mount where the host has none. All of it goes with the
// last kind cluster on the engine, never while another cluster runs.
import { mkdir, readFile, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir } from '../../core/paths.ts';
import { step, type Progress } from '../../core/progress.ts';
import { stopOwnEngine } from './engine.ts';
import type { Runner } from './tools.ts';

/** The label kind puts on every node container of a cluster. */
const CLUSTER_LABEL = 'io.x-k8s.kind.cluster';
const LIB_MODULES = '/lib/modules';
/** Marks that Docker created an empty /lib/modules for kind's mount (this host has none): removed with the last cluster. */
const LIB_MODULES_MARK = 'lib-modules-created-by-docker';

/** Before a cluster is created: remember whether /lib/modules is this host's own. */
export async function noteLibModules(env: NodeJS.ProcessEnv): Promise<void> {
  if ((await readdir(LIB_MODULES).catch(() => undefined)) !== undefined) return;
  await mkdir(join(cacheDir(env), 'kind'), { recursive: true });
  await writeFile(join(cacheDir(env), 'kind', LIB_MODULES_MARK), 'Docker creates /lib/modules for kind\n');
}

/** After a cluster is deleted: with no kind node left on the engine, what kind and credprov added goes. */
export async function afterLastCluster(
  run: Runner,
  engine: 'own' | 'system',
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<void> {
  const left = await run('docker', ['ps', '-aq', '--filter', `label=${CLUSTER_LABEL}`]);
  if (left.exitCode !== 0 || left.stdout.trim() !== '') return;
  await run('docker', ['network', 'rm', 'kind']);
  if (engine === 'own') await step(progress, 'stop credprov’s own Docker engine', () => stopOwnEngine());
  const mark = join(cacheDir(env), 'kind', LIB_MODULES_MARK);
  if ((await readFile(mark, 'utf8').catch(() => undefined)) === undefined) return;
  if ((await readdir(LIB_MODULES).catch(() => ['?'])).length === 0) await rmdir(LIB_MODULES).catch(() => {});
  await rm(mark, { force: true });
}
