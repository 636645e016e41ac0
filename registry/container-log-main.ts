// Follows a detached registry container's output into its log file once
// `credprov registry up --provider container` has exited (that process
// captured it until then). Started detached, recorded in the registry's state
// like the token server, so teardown stops it; it also ends by itself when the
// container goes. Usage: container-log-main.ts DOCKER_HOST CONTAINER_ID LOG_FILE
import { dockerRuntime } from '../src/engine/docker-runtime.ts';
import { LogCapture } from './container-logs.ts';

const [host, id, file] = process.argv.slice(2);
if (!host || !id || !file) {
  process.stderr.write('usage: container-log-main.ts DOCKER_HOST CONTAINER_ID LOG_FILE\n');
  process.exit(2);
}
const { client } = await dockerRuntime(host);
// From the container's first line: the file then holds its whole output once, whatever the handover timing.
const capture = new LogCapture(file, 'w');
capture.capture(await client.container.logs(client.container.getById(id)));
// testcontainers unrefs the log socket (a test process must not wait on it); here it is the job.
const keepAlive = setInterval(() => {}, 60_000);
for (const sig of ['SIGTERM', 'SIGINT'] as const)
  process.once(sig, () => void capture.close().finally(() => process.exit(0)));
await capture.flushed();
clearInterval(keepAlive);
