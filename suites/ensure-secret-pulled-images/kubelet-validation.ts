// Whether the kubelet's own config validation accepts an allowlist entry
// (k/k #137629: 1.35 refuses a familiar name such as `alpine`). The suite
// cannot restart its kubelet into a refused config (it would not come back),
// so it asks the same kubelet binary (the kit's validateKubeletConfig) about a
// config that holds the entry and also imageGCHighThresholdPercent 101:
// validation collects every error, so the binary always stops there, and its
// errors say whether the entry was among them.
import { validateKubeletConfig, type CaseContext, type Environment } from '../../src/run/kit.ts';

/** Always invalid, so the binary stops at validation whatever the entry; and the error it gives. */
const ALWAYS_INVALID = 'imageGCHighThresholdPercent: 101';
const ALWAYS_INVALID_ERROR = 'imageGCHighThresholdPercent (--image-gc-high-threshold) 101';
/** validation.go: the error of an entry getAllowlistImagePattern refuses. */
const REFUSED = 'invalid image pattern in `preloadedImagesVerificationAllowlist`';

export interface EntryValidationRun {
  binary: string;
  verdicts: Record<string, 'accepted' | 'refused'>;
  /** The binary's errors (or last lines) per entry. */
  outputs: Record<string, string>;
  /** Set when an entry's run said neither (the binary did not reach validation). */
  invalidBecause?: string;
}

const configFor = (entry: string): string =>
  [
    'apiVersion: kubelet.config.k8s.io/v1beta1',
    'kind: KubeletConfiguration',
    ALWAYS_INVALID,
    'imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages',
    'preloadedImagesVerificationAllowlist:',
    `- ${JSON.stringify(entry)}`,
    '',
  ].join('\n');

export async function validateAllowlistEntries(
  env: Environment,
  entries: string[],
  ctx: CaseContext,
): Promise<EntryValidationRun> {
  const verdicts: EntryValidationRun['verdicts'] = {};
  const outputs: EntryValidationRun['outputs'] = {};
  const unclear: string[] = [];
  let binary = '';
  for (const entry of entries) {
    const v = await validateKubeletConfig(ctx, env, configFor(entry));
    binary = v.binary;
    outputs[entry] = v.errors ?? v.tail;
    if (v.errors?.includes(REFUSED)) verdicts[entry] = 'refused';
    else if (v.errors?.includes(ALWAYS_INVALID_ERROR)) verdicts[entry] = 'accepted';
    else unclear.push(entry);
  }
  return {
    binary,
    verdicts,
    outputs,
    ...(unclear.length
      ? {
          invalidBecause: `the kubelet binary ${binary} did not stop at config validation for ${unclear.join(', ')} (see its output in the evidence)`,
        }
      : {}),
  };
}
