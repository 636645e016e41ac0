import { describe, test, expect } from '@jest/globals';
import { memoryLogger } from '../src/core/logger.ts';
import { detectRegistryProvider } from './index.ts';

describe('detectRegistryProvider', () => {
  test('says why each provider was passed over when none can run', async () => {
    const log = memoryLogger();
    await expect(
      detectRegistryProvider({
        order: ['container'],
        logger: log,
        container: { dockerHost: 'unix:///nonexistent/docker.sock', binary: '/bin/true' },
      }),
    ).rejects.toThrow(
      'no registry provider can run here (container: no Docker daemon answers at unix:///nonexistent/docker.sock (no such socket))',
    );
    expect(log.lines).toEqual([
      'info: registry provider container passed over: no Docker daemon answers at unix:///nonexistent/docker.sock (no such socket)',
    ]);
  });
});
