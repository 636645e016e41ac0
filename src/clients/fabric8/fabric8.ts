// The fabric8 kubernetes-client (Java) as a client of an exec plugin:
// probe/Fabric8Probe.java, compiled with javac against io.fabric8:kubernetes-client
// from Maven Central, run as one long-lived JVM per session and driven over
// the JSON-lines protocol (../line-session.ts), like the client-go probe.
//
// Build: Maven resolves probe/pom.xml's dependencies (the client and an SLF4J
// binding to java.util.logging, where the probe reads fabric8's warnings) into
// its local repository (default ~/.m2/repository) and copies the jars into the
// entry (dependency:copy-dependencies); javac compiles the probe; a launcher
// script runs `java -cp classes:lib/*`. Cached per fabric8 version and probe
// source under <cacheDir>/clients/fabric8-probe/<8.0.0>-<sha>/ (../probe-build.ts).
import { execa } from 'execa';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeBinaries } from '../../cluster/binaries/cache.ts';
import { PrerequisiteError, tail } from '../../core/errors.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';
import { defaultClientEnv, resolveProbeOptions, type ProbeOptions } from '../common.ts';
import { type FieldClientProbe } from '../field-client.ts';
import { startLineProcess } from '../line-session.ts';
import { ensureProbeEntry, probeKey, type ProbeEntry } from '../probe-build.ts';
import type { ClientAvailability, ClientTarget, ProbeSession, StartOptions } from '../probe.ts';

export const FABRIC8 = 'fabric8';
export const FABRIC8_PROBE = 'fabric8-probe';
/** io.fabric8:kubernetes-client, the newest release on Maven Central when pinned. */
export const FABRIC8_VERSION = '8.0.0';
/** The SLF4J binding: the slf4j-api version fabric8 8.0.0 resolves to. */
export const FABRIC8_SLF4J_VERSION = '2.0.17';
export const FABRIC8_PROBE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'probe');
const SOURCES = ['pom.xml', 'Fabric8Probe.java'];
/** fabric8 gives its plugin a stdin pipe it never writes: no terminal can reach the plugin. */
export const FABRIC8_NO_TERMINAL =
  'fabric8 starts its plugin with a stdin pipe it never writes (ProcessBuilder default), so the plugin never sees a terminal';

export function fabric8ProbeRoot(cacheDir: string): string {
  return join(cacheDir, 'clients', FABRIC8_PROBE);
}

export interface EnsureFabric8ProbeOptions extends ProbeOptions {
  progress?: Progress;
  signal?: AbortSignal;
  cachedOnly?: boolean;
  /** Maven's local repository (default Maven's own, ~/.m2/repository). */
  mavenRepo?: string;
}

async function run(file: string, args: string[], cwd: string, what: string, hint: string, signal?: AbortSignal) {
  const r = await execa(file, args, { cwd, all: true, reject: false, ...(signal ? { cancelSignal: signal } : {}) });
  if (r.exitCode !== 0)
    throw new PrerequisiteError(`${what} failed (${r.exitCode ?? r.signal ?? r.code})`, {
      detail: tail(String(r.all ?? r.message), 20),
      hint,
    });
  return `${String(r.stdout)}\n${String(r.stderr)}`;
}

export async function ensureFabric8Probe(o: EnsureFabric8ProbeOptions = {}): Promise<ProbeEntry | undefined> {
  const r = resolveProbeOptions(o);
  const progress = o.progress ?? silentProgress;
  return ensureProbeEntry({
    root: fabric8ProbeRoot(r.cacheDir),
    key: await probeKey(
      FABRIC8_VERSION,
      SOURCES.map((f) => join(FABRIC8_PROBE_DIR, f)),
    ),
    files: [FABRIC8_PROBE],
    what: 'the fabric8 probe',
    progress,
    ...(o.cachedOnly ? { cachedOnly: true } : {}),
    async fill(staging, startedAt) {
      const pom = (await readFile(join(FABRIC8_PROBE_DIR, 'pom.xml'), 'utf8'))
        .replaceAll('@FABRIC8_VERSION@', FABRIC8_VERSION)
        .replaceAll('@SLF4J_VERSION@', FABRIC8_SLF4J_VERSION);
      const build = join(staging, '.build');
      await mkdir(build, { recursive: true });
      await writeFile(join(build, 'pom.xml'), pom);
      progress.note(`resolving io.fabric8:kubernetes-client ${FABRIC8_VERSION} from Maven Central (first time only)`);
      const hint = 'it needs Maven (mvn), a JDK 17+ and Maven Central; nothing was cached';
      await step(progress, `mvn dependency:copy-dependencies (fabric8 ${FABRIC8_VERSION})`, () =>
        run(
          'mvn',
          [
            '-B',
            '-q',
            ...(o.mavenRepo ? [`-Dmaven.repo.local=${o.mavenRepo}`] : []),
            'dependency:copy-dependencies',
            `-DoutputDirectory=${join(staging, 'lib')}`,
            '-DincludeScope=runtime',
          ],
          build,
          'mvn dependency:copy-dependencies',
          hint,
          o.signal,
        ),
      );
      await step(progress, `javac ${FABRIC8_PROBE}`, () =>
        run(
          'javac',
          [
            '-d',
            join(staging, 'classes'),
            '-cp',
            `${join(staging, 'lib')}/*`,
            join(FABRIC8_PROBE_DIR, 'Fabric8Probe.java'),
          ],
          build,
          'javac Fabric8Probe.java',
          hint,
          o.signal,
        ),
      );
      // The launcher finds its jars beside itself, so the entry works wherever the cache is.
      const launcher = join(staging, FABRIC8_PROBE);
      await writeFile(
        launcher,
        '#!/bin/sh\n# fabric8-probe launcher (src/clients/fabric8/fabric8.ts)\nd=$(dirname "$0")\nexec java ${CREDPROV_FABRIC8_JAVA_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto} -cp "$d/classes:$d/lib/*" Fabric8Probe "$@"\n',
      );
      await chmod(launcher, 0o755);
      const jars = (await readdir(join(staging, 'lib'))).filter((f) => f.endsWith('.jar')).sort();
      const java = (await run('java', ['-version'], build, 'java -version', hint)).trim().split('\n')[0];
      return {
        version: FABRIC8_VERSION,
        source: 'build',
        origin: `Maven Central io.fabric8:kubernetes-client:${FABRIC8_VERSION} (${jars.length} jars: ${jars.join(' ')}), ${java}`,
        binaries: await describeBinaries(staging, [FABRIC8_PROBE]),
        createdAt: new Date().toISOString(),
        durationMs: Date.now() - startedAt,
      };
    },
  });
}

/** What fabric8's first request may take beyond the plugin's own limit (measured 10-14 s under load 20). */
export const FABRIC8_FIRST_REQUEST_SLACK_MS = 30_000;

export function fabric8Probe(o: ProbeOptions = {}): FieldClientProbe {
  const r = resolveProbeOptions(o);
  let built: Promise<ProbeEntry | undefined> | undefined;
  const entry = () => (built ??= ensureFabric8Probe({ ...o, cachedOnly: true }));
  const notBuilt = `the fabric8 probe (kubernetes-client ${FABRIC8_VERSION}) is not built: run \`node scripts/build-field.ts fabric8\` (needs mvn, a JDK 17+ and Maven Central)`;
  return {
    name: FABRIC8,
    async available(): Promise<ClientAvailability> {
      return (await entry()) ? { ok: true, version: FABRIC8_VERSION } : { ok: false, reason: notBuilt };
    },
    async start(target: ClientTarget, so: StartOptions): Promise<ProbeSession> {
      const e = await entry();
      if (!e) throw new PrerequisiteError(notBuilt);
      return startLineProcess({
        client: FABRIC8,
        file: join(e.dir, FABRIC8_PROBE),
        args: ['--kubeconfig', target.kubeconfig, ...(target.context ? ['--context', target.context] : [])],
        env: so.env ?? defaultClientEnv(r.env),
        timeoutMs: so.timeoutMs,
        // A JVM and the client's classes: seconds on a loaded machine before the ready line.
        startTimeoutMs: Math.max(so.timeoutMs, 60_000),
        // Its first request loads the client's classes and vert.x (10-14 s measured): not the plugin's time.
        firstRequestSlackMs: FABRIC8_FIRST_REQUEST_SLACK_MS,
        ...(so.terminal ? { notes: [FABRIC8_NO_TERMINAL] } : {}),
        ...(so.signal ? { signal: so.signal } : {}),
        ...(so.redactor ? { redactor: so.redactor } : {}),
      });
    },
  };
}
