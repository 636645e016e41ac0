// The vendor-gcp cases of the two other --authFlow modes: a legacy .dockercfg
// in the google-dockercfg instance attribute, or at the URL the
// google-dockercfg-url attribute names.
import { caseOf, judge, type Case, type Check, type GcpLab } from '../../src/run/kit.ts';
import { DOCKERCFG, DOCKERCFG_URL } from './checks.ts';
import { DOCKERCFG_OBJECT, dockercfgs, IMAGES, providerConfig, type PlannedImage } from './plan.ts';
import { predictPulls, type GceState } from './predict.ts';
import { pullIn, showViews, viewOf, windowEvidence } from './session.ts';

function flowCase(lab: GcpLab, check: Check, image: PlannedImage): Case {
  return caseOf(check, async (ctx) => {
    const cfg = dockercfgs(lab.privateLogin);
    const state: GceState = {
      up: true,
      dockercfg: cfg.attribute,
      dockercfgUrl: lab.dockercfgUrl,
      urlObject: cfg.urlObject,
    };
    const prediction = predictPulls(providerConfig(), [{ img: image, now: ctx.clock.now(), state }]);
    const w = await pullIn(ctx, lab, image);
    return judge(check, {
      prediction,
      observed: [viewOf(w)],
      show: showViews,
      evidence: windowEvidence(lab, [w]),
      actor: 'the kubelet, auth-provider-gcp and the registry',
      startedAt: ctx.startedAt,
      note: `the private registry's user is ${lab.privateLogin.username}; the object is ${DOCKERCFG_OBJECT}`,
    });
  });
}

export const dockercfgCase = (lab: GcpLab): Case => flowCase(lab, DOCKERCFG, IMAGES.dockercfg);
export const dockercfgUrlCase = (lab: GcpLab): Case => flowCase(lab, DOCKERCFG_URL, IMAGES.dockercfgUrl);
