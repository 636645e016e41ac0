// What the kubelet does with each pod of the story, from credprov's model of
// a node's images (src/model/node-images.ts NodeImagesModel: names → image
// IDs → one KEP-2535 record per image ID, each step ensureImageExists) and
// the kubelet's row of the version table. Pure: the image ID, the host and
// the secret's UID come in.
import { NodeImagesModel } from '../../src/model/node-images.ts';
import type { ContainerOutcome, PodSecret } from '../../src/model/ensure-secret-pulled.ts';
import type { Prediction } from '../../src/run/kit.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { referenceOf, SECRET, STORY, type StoryStep } from './plan.ts';

export const MODEL = 'node images (src/model/node-images.ts NodeImagesModel) over ensure-secret-pulled.ts';

export interface StoryInput {
  kubeletVersion: string;
  namespace: string;
  host: string;
  root: string;
  /** The image's ID (its config digest): X's and Y's alike. */
  imageRef: string;
  secretUid: string;
}

export interface StepPrediction {
  step: StoryStep;
  outcome: Prediction<ContainerOutcome>;
  /** The repositories the image ID's record maps after this step (none: no record). */
  mappedAfter: string[];
}

export function predictStory(i: StoryInput): StepPrediction[] {
  const node = new NodeImagesModel(behaviourFor(i.kubeletVersion));
  node.preload(referenceOf(i.host, i.root, 'x'), i.imageRef);
  const secret: PodSecret = {
    name: SECRET,
    uid: i.secretUid,
    auths: { [i.host]: { username: 'lab', password: 'lab', works: true } },
  };
  return STORY.map((step) => {
    const p = node.run({
      image: referenceOf(i.host, i.root, step.image),
      pullPolicy: step.pullPolicy,
      imageRef: i.imageRef,
      pod: { namespace: i.namespace, secrets: step.withSecret ? [secret] : [] },
    });
    const record = node.recordOf(i.imageRef);
    return {
      step,
      outcome: { value: p.outcome, model: MODEL, because: `${step.pod}: ${p.because}` },
      mappedAfter: Object.keys(record?.credentialMapping ?? {}).sort(),
    };
  });
}
