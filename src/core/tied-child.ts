// A helper process that must not outlive credprov (a server a suite starts
// and stops itself): started under `setpriv --pdeathsig KILL`, so the kernel
// kills it when credprov dies, even by SIGKILL, when no exit hook runs.
// Processes meant to outlive a run (the cluster's components under --keep)
// are not started this way.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';

const SETPRIV = '/usr/bin/setpriv';

/** The command line that runs `bin args` tied to this process's life (as is, where setpriv is missing). */
export function tiedCommand(bin: string, args: readonly string[]): { file: string; args: string[] } {
  // The death signal is armed in the forked child and survives setpriv's exec of bin.
  return existsSync(SETPRIV)
    ? { file: SETPRIV, args: ['--pdeathsig', 'KILL', '--', bin, ...args] }
    : { file: bin, args: [...args] };
}

export function spawnTied(bin: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const c = tiedCommand(bin, args);
  return spawn(c.file, c.args, options);
}
