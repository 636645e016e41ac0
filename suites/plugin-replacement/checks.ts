// The plugin-replacement suite's checks: a credential provider binary
// replaced while the kubelet runs (a DaemonSet installer; k/k #120291).
// Issue 30 item 7.
import type { Check } from '../../src/run/kit.ts';

const PLUGIN_GO =
  'kubelet pkg/credentialprovider/plugin/plugin.go: registration only checks the path (exec.LookPath, v1.37.1:175); every exec joins it again (706)';

export const RENAME_NEXT_EXEC: Check = {
  id: 'UPG-RENAME-NEXT-EXEC',
  title:
    "A plugin binary renamed over the old one while the kubelet runs is exec'd for the next uncached pull, with no kubelet restart",
  level: 'MUST',
  source: `KEP-2133: the kubelet execs the plugin per request; ${PLUGIN_GO}`,
};

export const CACHE_SURVIVES: Check = {
  id: 'UPG-CACHE-SURVIVES',
  title:
    "The kubelet's credential cache survives the replacement: an image the old binary answered is served without an exec",
  level: 'MUST',
  source:
    'KEP-2133 cacheKeyType/cacheDuration: the cache belongs to the provider object created at start, keyed by image/registry/global, never by binary (plugin.go)',
};

export const IN_PLACE_BUSY: Check = {
  id: 'UPG-IN-PLACE-BUSY',
  title:
    'Copying a new binary onto the plugin while an exec runs it fails with ETXTBSY ("Text file busy"): the installer fails and the next pull still runs the old binary',
  level: 'SHOULD',
  source: 'Linux open(2) ETXTBSY on a file being executed; what a DaemonSet installer doing `cp` meets (k/k #120291)',
};

export const EXEC_DURING_WRITE: Check = {
  id: 'UPG-EXEC-DURING-WRITE',
  title:
    'A pull whose exec starts while the plugin file is open for writing gets no credentials: the kubelet\'s exec fails with "text file busy"',
  level: 'SHOULD',
  source: `Linux execve(2) ETXTBSY on a file open for writing; ${PLUGIN_GO}: an exec error means no credentials from the plugin`,
};

export const UNLINK_WINDOW: Check = {
  id: 'UPG-UNLINK-WINDOW',
  title:
    'A pull whose exec starts while the plugin is removed (an installer\'s rm, then write) gets no credentials: the kubelet\'s exec fails with "no such file or directory"',
  level: 'SHOULD',
  source: `Linux execve(2) ENOENT; ${PLUGIN_GO}: the path is joined at exec time, so a missing file fails that exec`,
};

export const PLUGIN_REPLACEMENT_CHECKS = [
  RENAME_NEXT_EXEC,
  CACHE_SURVIVES,
  IN_PLACE_BUSY,
  EXEC_DURING_WRITE,
  UNLINK_WINDOW,
];
