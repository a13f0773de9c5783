import type { ChildProcess } from 'node:child_process';
import net from 'node:net';

/** A TCP port that was free on loopback a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/**
 * A TCP port below 32768 that was free on loopback a moment ago, not in `taken`. Below the kernel's
 * ephemeral range (32768 and up, where port 0 and outgoing connections get theirs), so a server that binds
 * it later cannot collide with another process's freePort() pick or a client socket (the cluster and its
 * drill run beside the test suite's stacks). Also what the Temporal server needs for its membership ports.
 */
export async function freeLowPort(taken: Set<number> = new Set()): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * 22_000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free port below 32768');
}

/** Resolves once a server `child` started accepts connections on `port`; rejects if it exits first or after `timeoutMs`. */
export async function untilAccepting(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await acceptsConnections(port))) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited (${child.exitCode ?? child.signalCode}) before answering on :${port}`);
    if (Date.now() > deadline) throw new Error(`did not answer on :${port} within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => (socket.destroy(), resolve(false)));
  });
}
