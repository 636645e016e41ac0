// The pod sandbox image: the registry package's pause image (a static binary
// built once and cached), under a name that never resolves to a real registry.
import { exportImageTar, pauseImage } from '../../../registry/index.ts';
import type { SandboxImage } from './context.ts';

export const SANDBOX_IMAGE_REF = 'localhost/credprov/pause:1';

export function defaultSandboxImage(): SandboxImage {
  return {
    ref: SANDBOX_IMAGE_REF,
    async writeArchive(path) {
      await exportImageTar(await pauseImage({ tag: '1' }), path, SANDBOX_IMAGE_REF);
    },
  };
}
