// The ensure-secret-pulled-images suite: KEP-2535 on the real kubelet.
//
// Setup: one htpasswd registry, an image per cell (plan-cells.ts), two recording
// fake providers (a node-mode one, and a service-account-mode one with
// tokenAttributes, its audience granted to nodes by RBAC), a namespace with
// the secrets `right`, `right-copy` (the same credentials) and `wrong`, and
// service accounts sa-a and sa-b (identities.ts).
//
// Then one node's story, in order (story.ts): half the cells' images are
// imported into containerd behind the kubelet's back ("preloaded"), the other
// half pulled by first pods while the first policy is active (first-pulls.ts);
// then, policy by policy (a kubelet restart between two), every cell's second
// pod runs at once (phases.ts). Each cell's outcome, event, plugin execs and
// record are predicted first by src/model/ensure-secret-pulled.ts (the
// kubelet's EnsureImageExists/MustAttemptImagePull as of v1.37.1; predict.ts)
// and then observed. Between the first and second policy, one image is
// removed with ctr to see whether its record is pruned, and the restart
// itself is checked (restart-cases.ts).
import { randomBytes } from 'node:crypto';
import {
  busyboxImage,
  runNamespace,
  grantNodesAudience,
  imageManagerDir,
  kubeletVersionOf,
  removeImagesNamed,
  step,
  prepareFleet,
  runCases,
  startLabRegistry,
  type CheckResult,
  type Fleet,
  type LabRegistry,
  type PreparedSuite,
  type Suite,
  type SuiteRun,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { kubeletOfMinor } from '../../src/model/ensure-secret-pulled.ts';
import { parseKubeVersion } from '../../src/versions/table.ts';
import { allowlistOf, buildCells, PHASES, type Cell, type Layout } from './plan-cells.ts';
import { ESPI_CHECKS } from './checks.ts';
import { recordsFormatCase } from './first-pulls.ts';
import { HUB_HOST, hubAllowlist, hubPlan, type HubPlan } from './predict-hub.ts';
import { hubAllowlistCase, hubCrossCase } from './hub-cases.ts';
import { fillNamespace } from './identities.ts';
import { metricsCase, phaseCases, pluginPresentCase, recordsContentCase } from './matrix-cases.ts';
import { fleetMembers, phaseConfig, podProviders } from './plan.ts';
import { predictMatrix } from './predict.ts';
import { pruneCase, restartCase } from './restart-cases.ts';
import { Story } from './story.ts';

export const ensureSecretPulledImagesSuite: Suite = {
  name: 'ensure-secret-pulled-images',
  summary:
    "KEP-2535 on the real kubelet: per imagePullCredentialsVerificationPolicy, IfNotPresent/Never × the second pod's credentials " +
    '(none, same secret, same credentials in another secret, wrong secret, provider, SA-mode provider with the same or another SA) ' +
    '× pulled by the kubelet or preloaded; records, metrics, restart and pruning',
  checks: ESPI_CHECKS,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    const lab = await startLabRegistry(ctx, 'espi');
    ctx.defer(() => lab.stop({ keepLogAs: 'registry.log' }));
    const layout: Layout = { host: lab.registry.host, root: `espi-${id}` };
    const base = await busyboxImage({ marker: `credprov-espi-${id}` });
    const cells = buildCells(layout, base);
    const hub = hubPlan(layout.root, base);
    // The cells' images, and the one image of the field bugs the kubelet pulls (through docker.io); the others are preloaded.
    const images = [...cells, hub.cross].map((c) => ({ image: c.image, repository: c.repo, tag: c.image.tag }));
    await step(ctx.progress, `push ${images.length} images`, () => lab.pushImages(images));
    const right = { username: lab.user.username, password: lab.user.password };
    const audience = `credprov-espi-${id}`;
    const fleet = await prepareFleet(ctx, fleetMembers(layout, right, audience));
    // Their scenario files and request log held the registry's password in clear for the fakes.
    ctx.defer(() => fleet.redactArtifacts());
    return {
      // registryPullQPS 0 (no limit): the first pulls come faster than the default 5/s, and a
      // "pull QPS exceeded" ErrImagePull is the harness's doing, not KEP-2535's.
      spec: {
        ...fleet.spec,
        kubelet: { config: phaseConfig({ registryPullQPS: 0 }, PHASES[0]!, allowlistOf(layout)) },
      },
      // The kubelet's records (image_manager) and config are read on this host, and images imported and removed with ctr.
      needs: ['installPlugins', 'hostRegistries', 'restartKubelet', 'kubeletFiles', 'hostContainerd'],
      run: (run) => runSuite(run, { id, lab, fleet, layout, cells, hub, audience }),
    };
  },
};

interface Prepared {
  id: string;
  lab: LabRegistry;
  fleet: Fleet;
  layout: Layout;
  cells: Cell[];
  hub: HubPlan;
  audience: string;
}

async function runSuite(run: SuiteRun, p: Prepared): Promise<CheckResult[]> {
  const env = run.environment;
  await p.lab.serveAs(run, p.layout.host);
  // The field bugs' images have familiar Docker Hub names: the lab answers as docker.io (nothing leaves loopback).
  await p.lab.serveAs(run, HUB_HOST);
  // One namespace for the whole story: the second pods' secrets and service accounts must be those the first pulls recorded.
  const namespace = await runNamespace(run, `credprov-espi-${p.id}`);
  await grantNodesAudience(env, p.audience, { name: `credprov-espi-${p.id}` }, run);
  // This run's images (their IDs are unique to the run); their records stay, as the prune check shows they would.
  run.defer(async () => void (await removeImagesNamed(env, `/${p.layout.root}/`)));
  run.defer(async () => void (await removeImagesNamed(env, `/library/${p.layout.root}-`)));

  const right = { username: p.lab.user.username, password: p.lab.user.password };
  const wrong = { username: p.lab.user.username, password: p.lab.wrongPassword };
  const ids = await fillNamespace(env, {
    namespace: namespace.name,
    host: p.layout.host,
    right,
    wrong,
    providers: podProviders(p.layout, right),
  });
  const kubeletMinor = parseKubeVersion(kubeletVersionOf(env)).minor;
  const kubelet = kubeletOfMinor(kubeletMinor);
  // The familiar-name entries this kubelet's validation accepts join the allowlist policy's list.
  const allowlist = [...allowlistOf(p.layout), ...hubAllowlist(p.hub, kubelet)];
  const story = new Story({
    run,
    fleet: p.fleet,
    cells: p.cells,
    ids,
    allowlist,
    imageManager: imageManagerDir(env),
    kubeletMinor,
    kubelet,
    matrix: predictMatrix(p.cells, ids, allowlist, kubelet),
  });
  // In order: each case plays its part of the story on the node the one before left.
  const phases = phaseCases(story);
  const cases = [
    recordsFormatCase(story),
    ...phases.slice(0, 2),
    // Each field-bug part runs while the kubelet keeps the policy before it (the default, then the allowlist).
    hubCrossCase(story, p.hub),
    phases[2]!,
    hubAllowlistCase(story, p.hub),
    ...phases.slice(3),
    restartCase(story),
    pruneCase(story),
    pluginPresentCase(story),
    recordsContentCase(story),
    metricsCase(story),
  ];
  return namespace.settle(await runCases(run, cases, { concurrency: 1 }));
}
