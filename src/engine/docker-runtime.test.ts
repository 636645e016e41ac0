import { describe, test, expect, afterEach } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bindDockerHost, containerRunning, dockerHost, pingDocker } from './docker-runtime.ts';

describe('read-only questions to the Engine API', () => {
  let server: Server | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const serve = async (handler: Parameters<typeof createServer>[1]) => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-ping-'));
    const socket = join(dir, 'docker.sock');
    server = createServer(handler);
    await new Promise<void>((r) => server!.listen(socket, r));
    return `unix://${socket}`;
  };

  test('a daemon answering GET /version is up, with its version', async () => {
    const host = await serve((req, res) =>
      res.end(req.url === '/version' ? JSON.stringify({ Version: '20.10.24+dfsg1', ApiVersion: '1.41' }) : ''),
    );
    expect(await pingDocker(host)).toEqual({ ok: true, version: '20.10.24+dfsg1' });
  });

  test('says why not: no socket, something that is not Docker, a scheme it cannot reach', async () => {
    expect(await pingDocker('unix:///nonexistent/docker.sock')).toEqual({
      ok: false,
      reason: 'no Docker daemon answers at unix:///nonexistent/docker.sock (no such socket)',
    });
    const host = await serve((_req, res) => res.end('<html>hello</html>'));
    expect(await pingDocker(host)).toEqual({
      ok: false,
      reason: `${host} answered GET /version with HTTP 200, not a Docker daemon`,
    });
    expect(await pingDocker('ssh://user@host')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('unix:// or plain tcp:// only'),
    });
  });
  test('a container runs when the daemon says so; a removed one, or no daemon, is not running', async () => {
    const host = await serve((req, res) => {
      if (req.url === '/containers/abc/json') return res.end(JSON.stringify({ Id: 'abc', State: { Running: true } }));
      if (req.url === '/containers/old/json') return res.end(JSON.stringify({ Id: 'old', State: { Running: false } }));
      res.statusCode = 404;
      res.end(JSON.stringify({ message: 'No such container' }));
    });
    expect(await containerRunning(host, 'abc')).toBe(true);
    expect(await containerRunning(host, 'old')).toBe(false);
    expect(await containerRunning(host, 'gone')).toBe(false);
    expect(await containerRunning('unix:///nonexistent/docker.sock', 'abc')).toBe(false);
  });
});

describe('the daemon testcontainers is bound to', () => {
  test('the one named, else $DOCKER_HOST, else the default socket', () => {
    expect(dockerHost('unix:///a.sock', { DOCKER_HOST: 'unix:///b.sock' })).toBe('unix:///a.sock');
    expect(dockerHost(undefined, { DOCKER_HOST: 'unix:///b.sock' })).toBe('unix:///b.sock');
    expect(dockerHost(undefined, {})).toBe('unix:///var/run/docker.sock');
  });

  test('is set once, with Ryuk off; a second daemon in the same process is refused with the reason', () => {
    const env: NodeJS.ProcessEnv = {};
    bindDockerHost('unix:///tmp/one.sock', env);
    expect(env).toEqual({
      DOCKER_HOST: 'unix:///tmp/one.sock',
      TESTCONTAINERS_RYUK_DISABLED: 'true',
      TESTCONTAINERS_HOST_OVERRIDE: 'localhost',
    });
    expect(() => bindDockerHost('unix:///tmp/one.sock', env)).not.toThrow();
    expect(() => bindDockerHost('unix:///tmp/two.sock', env)).toThrow(
      'this process already talks to the Docker daemon at unix:///tmp/one.sock; testcontainers serves one daemon per process, so unix:///tmp/two.sock cannot be used too',
    );
  });
});
