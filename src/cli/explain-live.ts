// credprov explain --live: the same question as `explain`, asked of the real
// kubelet. Every provider of the config is replaced by a recording fake with
// the same name and matchImages, serving working credentials for a local
// registry that stands in for each image's host; a pod pulls each image, and
// the report says per provider what credprov predicted and what the kubelet
// did. Nothing leaves the machine: the images' hosts are routed to the local
// registry inside the environment's containerd.
import { join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { CredentialProviderConfig } from '../api/credentialprovider/types.ts';
import { applyEnv, mergePartial } from '../api/spec/index.ts';
import { CredprovError } from '../core/errors.ts';
import { stderrProgress } from '../core/progress.ts';
import { Redactor } from '../core/redact.ts';
import { writeReports } from '../report/write.ts';
import { liveMatchingSuite, type ImageVerdict } from '../run/live-matching.ts';
import { cleanupActiveSuites, runSuites } from '../run/runner.ts';
import { announceInterrupt } from './output.ts';
import { exitSoonAfterReturn, onInterrupt } from './signals.ts';
import type { CommandContext } from './command.ts';

/** The --json shape (stable: scripts parse it). */
export interface LiveExplainJson {
  images: Array<{
    image: string;
    requestImage: string;
    providers: Array<{
      name: string;
      predicted: { invoked: boolean; order: number | null };
      live: { invoked: boolean; order: number | null };
    }>;
    pull: { predicted: 'success' | 'failure'; live: 'success' | 'failure'; liveFailure?: string };
    agree: boolean;
  }>;
  agree: boolean;
  kubeVersion?: string;
  notes: string[];
}

export async function explainLive(
  o: { config: CredentialProviderConfig; images: string[]; kubeVersion?: string; json: boolean; reportDir?: string },
  ctx: CommandContext,
): Promise<number> {
  const notes: string[] = [];
  // The fakes need no token; tokenAttributes would also need audience RBAC and a service account.
  const config = {
    ...o.config,
    providers: o.config.providers.map(({ tokenAttributes, ...p }) => {
      if (tokenAttributes)
        notes.push(
          `provider ${p.name}: tokenAttributes left out (the recording fake needs no service-account token); matching is unaffected`,
        );
      return p;
    }),
  } as CredentialProviderConfig;
  let verdicts: ImageVerdict[] = [];
  const suite = liveMatchingSuite({
    name: 'explain-live',
    summary: `explain --live: ${o.images.join(', ')}`,
    config,
    cases: o.images.map((ref, i) => ({
      check: {
        id: `LIVE-${i + 1}`,
        title: `providers exec'd for ${ref} and its pull`,
        level: 'MUST',
        source: 'KEP-2133 matching, as the real kubelet applies it',
      },
      images: [{ ref }],
    })),
    onVerdicts: (v) => (verdicts = v),
  });
  const baseSpec = mergePartial(applyEnv({}, ctx.env, ctx.log), o.kubeVersion ? { kubeVersion: o.kubeVersion } : {});
  const progress = stderrProgress();
  const redactor = new Redactor();
  const artifacts = o.reportDir ?? (await mkdtemp(join(tmpdir(), 'credprov-explain-live-')));
  const release = onInterrupt(() => cleanupActiveSuites(), undefined, announceInterrupt(ctx));
  let cutShort = false;
  try {
    const { report, environment, abandoned } = await runSuites([suite], {
      baseSpec,
      artifactsDir: join(artifacts, 'artifacts'),
      log: ctx.log,
      progress,
      redactor,
      processEnv: ctx.env,
      command: 'credprov explain --live',
    });
    cutShort = !!abandoned;
    if (o.reportDir) await writeReports(report, o.reportDir, redactor);
    const broken = report.checks.find((c) => c.cause === 'harness');
    if (verdicts.length === 0 && broken)
      throw new CredprovError(`explain --live could not run: ${broken.message}`, {
        hint: 'credprov doctor says what the local cluster needs',
      });
    const out: LiveExplainJson = {
      images: verdicts.map((v) => ({
        image: v.image,
        requestImage: v.requestImage,
        providers: v.providers,
        pull: {
          predicted: v.pull.predicted,
          live: v.pull.live === 'success' ? 'success' : 'failure',
          ...(v.pull.live.startsWith('failure (') ? { liveFailure: v.pull.live.slice(9, -1) } : {}),
        },
        agree: v.agree,
      })),
      agree: verdicts.every((v) => v.agree),
      ...(environment ? { kubeVersion: environment.kubeVersion } : {}),
      notes,
    };
    ctx.stdout(o.json ? `${JSON.stringify(out)}\n` : render(out, verdicts));
    return out.agree ? 0 : 1;
  } finally {
    release();
    if (!o.reportDir) await rm(artifacts, { recursive: true, force: true });
    if (cutShort) exitSoonAfterReturn();
  }
}

function render(out: LiveExplainJson, verdicts: ImageVerdict[]): string {
  const lines: string[] = [
    `kubelet ${out.kubeVersion ?? '?'}: predicted by credprov's matching oracle, then asked of the real kubelet.`,
    "Each image is served by a local registry that accepts only the recording fakes' credentials,",
    'so "pull success" means a provider\'s credentials reached the pull and "failure" means none did.',
    '',
  ];
  for (const [i, img] of out.images.entries()) {
    lines.push(`image ${img.image}  (request.image ${img.requestImage})${img.agree ? '' : '  DISAGREES'}`);
    const width = Math.max(...img.providers.map((p) => p.name.length), 8);
    lines.push(`  ${'provider'.padEnd(width)}  predicted     kubelet`);
    const cell = (s: { invoked: boolean; order: number | null }) =>
      (s.invoked ? `exec #${(s.order ?? 0) + 1}` : "not exec'd").padEnd(12);
    for (const p of img.providers)
      lines.push(
        `  ${p.name.padEnd(width)}  ${cell(p.predicted)}  ${cell(p.live)}${p.predicted.invoked !== p.live.invoked || p.predicted.order !== p.live.order ? '  <- differs' : ''}`,
      );
    lines.push(
      `  ${'pull'.padEnd(width)}  ${img.pull.predicted.padEnd(12)}  ${img.pull.live}${img.pull.liveFailure ? ` (${img.pull.liveFailure})` : ''}`,
    );
    for (const r of verdicts[i]!.reasons) lines.push(`    ${r}`);
    lines.push('');
  }
  for (const n of out.notes) lines.push(`note: ${n}`);
  lines.push(
    out.agree
      ? 'result: the kubelet did what credprov predicted for every image'
      : "result: the kubelet disagreed with credprov for at least one image (see DISAGREES): a kubelet behaviour worth reporting, or a bug in credprov's model",
  );
  return `${lines.join('\n')}\n`;
}
