// credprov's model of a credential provider binary replaced while the kubelet
// runs (a DaemonSet installer upgrading the plugin; k/k #120291), read in
// k8s.io/kubernetes v1.37.1 pkg/credentialprovider/plugin/plugin.go (the same
// in v1.35.4 and v1.36.5):
// - At start, RegisterCredentialProviderPlugins (143-193) only checks that
//   <bin dir>/<name> exists and is executable (exec.LookPath, 175); nothing
//   keeps a handle on the file. Each exec joins the path again
//   (ExecPlugin, 706: exec.CommandContext(ctx, filepath.Join(pluginBinDir,
//   name))), so the next exec runs whatever file the path names then.
// - The credential cache belongs to the provider object created at start and
//   is keyed by image/registry/global (+ service account), never by the
//   binary: entries stored by the old binary keep serving until they expire.
// - Linux (seen on kernel 6.18 on this host): opening a file that is being
//   executed for writing fails with ETXTBSY ("Text file busy": cp onto a
//   running plugin fails), and execve of a file open for writing fails with
//   ETXTBSY too: the kubelet's exec then fails ("fork/exec …: text file
//   busy"), the plugin error counter rises and the pull goes on without the
//   plugin's credentials. rename(2) over the path replaces the directory
//   entry atomically: a running exec keeps the old inode, the next exec opens
//   the new one, and no window exists where the path is missing or half
//   written. Removing the file first opens a window where execs fail with
//   "no such file or directory".

export type Install =
  /** Write a temporary file in the same directory, then rename(2) it over the plugin (mv). */
  | 'rename-over'
  /** Open the existing file for writing and copy into it (cp onto it). */
  | 'write-in-place'
  /** rm, then write a new file at the path. */
  | 'unlink-then-write';

export interface ReplacementCase {
  install: Install;
  /** A plugin exec is running while the installer writes (its process has the file open for execution). */
  execRunningDuringInstall: boolean;
  /** A kubelet exec starts while the installer is writing (between open and close, or between rm and create). */
  execStartsDuringInstall: boolean;
  /** The next pull's image has a live cache entry (stored by the old binary). */
  cachedEntryForNextPull: boolean;
}

export interface ReplacementPrediction {
  /** The installer's write succeeds. */
  installed: boolean;
  installerError?: string;
  /** An exec that starts during the install. */
  execDuringInstall?: 'old-binary' | 'fails-text-file-busy' | 'fails-no-such-file';
  /** The next pull after the install: served from the cache, or an exec of the new (or, if the install failed, the old) binary. */
  nextPull: 'cached' | 'new-binary' | 'old-binary';
  kubeletRestartNeeded: false;
  because: string;
}

export function replacePlugin(c: ReplacementCase): ReplacementPrediction {
  const steps: string[] = [];
  let installed = true;
  let installerError: string | undefined;
  if (c.install === 'write-in-place' && c.execRunningDuringInstall) {
    installed = false;
    installerError = 'Text file busy';
    steps.push(
      'opening the running plugin for writing fails with ETXTBSY: the installer fails and the old binary stays',
    );
  } else if (c.install === 'write-in-place') steps.push('the installer rewrites the same inode');
  else if (c.install === 'rename-over')
    steps.push('rename(2) swaps the directory entry atomically; a running exec keeps the old inode');
  else steps.push('the path is missing between rm and the new file');
  let during: ReplacementPrediction['execDuringInstall'];
  if (c.execStartsDuringInstall) {
    if (c.install === 'rename-over') during = 'old-binary';
    else if (c.install === 'unlink-then-write') during = 'fails-no-such-file';
    else if (installed) during = 'fails-text-file-busy';
    else during = 'old-binary';
    steps.push(
      during === 'old-binary'
        ? 'an exec during the install runs the old binary'
        : during === 'fails-text-file-busy'
          ? 'an exec while the file is open for writing fails (fork/exec: text file busy): no credentials for that pull, plugin error counter +1'
          : 'an exec while the path is missing fails (fork/exec: no such file or directory): no credentials for that pull',
    );
  }
  const nextPull = c.cachedEntryForNextPull ? 'cached' : installed ? 'new-binary' : 'old-binary';
  steps.push(
    c.cachedEntryForNextPull
      ? 'the next pull is served from the cache the old binary filled (the cache is keyed by image, not by binary)'
      : `the next uncached pull execs ${installed ? 'the new' : 'the old'} binary: the kubelet joins the path at every exec (plugin.go:706); no restart`,
  );
  return {
    installed,
    ...(installerError ? { installerError } : {}),
    ...(during ? { execDuringInstall: during } : {}),
    nextPull,
    kubeletRestartNeeded: false,
    because: steps.join('; '),
  };
}

/** What certify kubelet-plugin --live tells a vendor about its installer, from the model. */
export const INSTALLER_ADVICE =
  'install the plugin by writing a temporary file in the same directory and rename(2) it over the old one (mv): the next exec runs the new binary with no kubelet restart; ' +
  'never copy onto the running file (ETXTBSY fails the installer while a pull runs the plugin, and a pull that starts while it writes fails with "text file busy") and never remove it first (pulls in between fail with "no such file or directory")';
