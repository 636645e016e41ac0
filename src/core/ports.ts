// Port picking on a loopback address. Predictable ports (5000, 5001 …) read
// better in image references than ephemeral ones, so we scan up from a base.
import { createServer } from 'node:net';

export function portFree(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen({ host: address, port, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** The first free port in [from, from+span); 0 asks the kernel for an ephemeral one. */
export async function freePort(address = '127.0.0.1', from = 0, span = 200): Promise<number> {
  if (from === 0) {
    return new Promise((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen({ host: address, port: 0 }, () => {
        const a = s.address();
        const port = typeof a === 'object' && a ? a.port : 0;
        s.close(() => resolve(port));
      });
    });
  }
  for (let p = from; p < from + span; p++) if (await portFree(address, p)) return p;
  throw new Error(`no free port on ${address} in ${from}-${from + span - 1}`);
}
