// Starts the Temporal CLI's dev server (the real server) in memory on free ports, with our search
// attributes registered, and waits until it answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { ensureTemporalCli } from './temporal-binaries.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';
import { freePort } from './ports.js';

export interface TemporalDevServer {
  address: string;
  uiPort: number | undefined;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  port?: number;
  uiPort?: number;
  headless?: boolean;
  dbFilename?: string;
  namespace?: string;
  log?: (line: string) => void;
}

export function devServerArgs(opts: { port: number; uiPort?: number; headless: boolean; dbFilename?: string; namespace: string }): string[] {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(opts.port), '--namespace', opts.namespace, '--log-level', 'warn'];
  if (opts.headless) args.push('--headless');
  else if (opts.uiPort) args.push('--ui-port', String(opts.uiPort));
  if (opts.dbFilename) args.push('--db-filename', opts.dbFilename);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);
  return args;
}

export async function waitForTemporal(address: string, timeoutMs = 30_000, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`Temporal server exited with code ${child.exitCode}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.healthService.check({});
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`Temporal server at ${address} did not answer within ${timeoutMs} ms: ${String(lastError)}`);
}

export async function startTemporalDevServer(opts: DevServerOptions = {}): Promise<TemporalDevServer> {
  const cli = await ensureTemporalCli(opts.log);
  const port = opts.port ?? (await freePort());
  const headless = opts.headless ?? true;
  const args = devServerArgs({ port, uiPort: opts.uiPort, headless, dbFilename: opts.dbFilename, namespace: opts.namespace ?? 'default' });
  const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const address = `127.0.0.1:${port}`;
  try {
    await waitForTemporal(address, 30_000, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${output}`);
  }
  return {
    address,
    uiPort: headless ? undefined : opts.uiPort,
    process: child,
    stop: () => stopChild(child),
  };
}

export function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
