// How Go's os/exec words a plugin's fate, so messages quote what the kubelet
// and client-go would log rather than Node's names for the same events.

/** Go's syscall.Errno strings (zerrors_linux_amd64.go) for the errors execve gives a plugin. */
const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  ENOEXEC: 'exec format error',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
  E2BIG: 'argument list too long',
  ETXTBSY: 'text file busy',
  ENAMETOOLONG: 'file name too long',
  ENOMEM: 'cannot allocate memory',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
};

/** "exec format error" for ENOEXEC; an unknown code is shown as it is. */
export function goErrnoText(code: string): string {
  return ERRNO_TEXT[code] ?? code;
}

/** The *fs.PathError cmd.Start returns when execve fails: "fork/exec /path: exec format error". */
export function goForkExecError(file: string, code: string): string {
  return `fork/exec ${file}: ${goErrnoText(code)}`;
}
