// The clustered topology on one machine, as the processes a production deployment runs (docker-compose.yml
// mirrors it): PostgreSQL (the application database plus Temporal's `temporal` and `temporal_visibility`),
// Redis (shared rate-limit counters), the real Temporal server on PostgreSQL, one sandbox process (the
// simulators hold state in memory, so one for everyone), N workers and N API replicas (`npm run worker`,
// `npm run api`: the same entry points production runs), and nginx in front of the replicas (plus, with `edge`, the TLS edge: Caddy). Every process
// has its own readiness check and log file (DATA_DIR/cluster/logs/<name>.log); stop() stops them newest
// first. `npm run start:cluster`, the flash-sale benchmark and the drill start it.
import { execFileSync } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, accessSync, constants } from 'node:fs';
import dgram from 'node:dgram';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { loadConfig, SANDBOX_PORTS, type Config } from '../../config/index.js';
import { migrate } from '../../prisma/migrate.js';
import { createDb } from '../../prisma/client.js';
import { seedFxRatesIfEmpty } from '../../activities/fx/fx-rates.js';
import { startEmbeddedPostgres, EMBEDDED_PG_PASSWORD, EMBEDDED_PG_USER, type EmbeddedPostgresServer } from '../lib/embedded-postgres.js';
import { ensureTemporalServer } from '../lib/temporal-binaries.js';
import { withLocalSecrets } from '../lib/local-secrets.js';
import { freeLowPort } from '../lib/ports.js';
import { ensureCaddy } from '../lib/tls-binaries.js';
import { edgeCaddyfile } from '../lib/tls-edge.js';
import { SERVICE_NODE_FLAGS } from '../lib/node-flags.js';
import { ManagedProcess, type ProcessSpec } from './process.js';
import { freeTemporalPorts, setupTemporalSchema, temporalServerSpec } from './temporal-server.js';
import type { SandboxReport } from './observer.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const APP_DATABASE = 'checkout';

export interface ClusterOptions {
  /** Kept between runs (start:cluster); omitted: a temporary directory, deleted by stop(). */
  dataDir?: string;
  apiReplicas?: number;
  workers?: number;
  /** 0 or omitted: a free port. */
  ports?: { proxy?: number; postgres?: number; redis?: number; temporal?: number; apiBase?: number };
  /** SANDBOX_PORT_OFFSET of the sandbox process; omitted: an offset whose ports are all free. */
  sandboxPortOffset?: number;
  /**
   * The TLS edge (Caddy, scripts/lib/tls-edge.ts) in front of the replicas beside nginx, with Caddy's local CA:
   * public origins (dashboard, checkout subdomains, verified custom domains) on https at `httpsPort`. Omitted: no edge
   * (the drill and the cluster tests reach the replicas through nginx only).
   */
  edge?: { httpPort?: number; httpsPort?: number };
  /** Variables added to every API replica's and worker's environment. */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface Cluster {
  /** The nginx front: what shoppers, merchants and the processor's webhooks reach. */
  url: string;
  /** With `edge`: https://localhost:<port> through the TLS edge, and the local CA's root that its certificates chain to. */
  edge?: { url: string; httpUrl: string; rootCert: string; storageDir: string };
  temporalAddress: string;
  databaseUrl: string;
  redisUrl: string;
  /** The configuration every replica runs with (sandbox URLs, secrets). */
  config: Config;
  observerUrl: string;
  apis: ManagedProcess[];
  workers: ManagedProcess[];
  processes: ManagedProcess[];
  logDir: string;
  postgres: EmbeddedPostgresServer;
  /** Freezes the PostgreSQL server (postmaster and every backend: SIGSTOP) for `ms`, then resumes it. */
  pausePostgres(ms: number): Promise<void>;
  observe(): Promise<SandboxReport>;
  stop(): Promise<void>;
}

function executable(name: string, candidates: string[]): string {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), ...candidates]) {
    const p = path.join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  throw new Error(`${name} is not installed: \`apt-get install ${name === 'nginx' ? 'nginx-light' : 'redis-server'}\` (Debian), as .ci/run does`);
}

function portFree(port: number, udp = false): Promise<boolean> {
  return new Promise((resolve) => {
    if (udp) {
      const socket = dgram.createSocket('udp4');
      socket.once('error', () => resolve(false));
      socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
      return;
    }
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** An offset that moves every simulator port (4010…4070 and DNS 5354) onto free ports below 32768. */
export async function freeSandboxOffset(taken: ReadonlySet<number> = new Set()): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const offset = 10_000 + Math.floor(Math.random() * 180) * 100;
    if (Object.values(SANDBOX_PORTS).some((port) => taken.has(port + offset))) continue;
    const checks = await Promise.all(Object.entries(SANDBOX_PORTS).map(([name, port]) => portFree(port + offset, name === 'dnsUdp')));
    const tcpDns = await portFree(SANDBOX_PORTS.dnsUdp + offset);
    if (checks.every(Boolean) && tcpDns) return offset;
  }
  throw new Error('no free range of sandbox ports found');
}

/** GET over https, the certificate checked against `caFile` only (the edge's local CA). */
function httpsOk(url: string, caFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!existsSync(caFile)) return reject(new Error(`no local CA root yet at ${caFile}`));
    const req = https.get(url, { ca: readFileSync(caFile), timeout: 5_000 }, (res) => {
      res.resume();
      if (res.statusCode === 200) resolve();
      else reject(new Error(`${url} answered ${res.statusCode}`));
    });
    req.once('timeout', () => req.destroy(new Error(`${url}: no answer in 5 s`)));
    req.once('error', reject);
  });
}

async function httpOk(url: string): Promise<void> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await res.body?.cancel();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
}

/** The processes of a PostgreSQL server: its postmaster (from postmaster.pid) and every child of it. */
function postgresPids(dataDir: string): number[] {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after the last ')'.
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

function nginxConf(opts: { dir: string; port: number; upstreams: number[] }): string {
  const temp = (name: string) => path.join(opts.dir, 'nginx', name);
  for (const name of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(temp(name), { recursive: true });
  const isRoot = process.getuid?.() === 0;
  return `# Written by scripts/cluster/cluster.ts on every start.
${isRoot ? 'user root root;\n' : ''}worker_processes 1;
pid ${path.join(opts.dir, 'nginx', 'nginx.pid')};
error_log stderr warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${temp('client_body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  upstream api {
    # A replica that refuses connections (killed, restarting) is skipped for 2 s; keep-alive to both.
${opts.upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${opts.port};
    client_max_body_size 2m;
    location / {
      proxy_pass http://api;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      # Overwritten, never appended: the replicas trust this header (TRUST_PROXY=true) and must see the
      # address nginx saw, not one a client wrote.
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      # Only a request that never reached a replica moves to the other one (a POST that did is not resent).
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
      proxy_read_timeout 60s;
    }
  }
}
`;
}

/** redis-server on loopback, in memory only (rate-limit counters need no persistence); ready when it answers PING. */
export function redisServerSpec(port: number): ProcessSpec {
  const url = `redis://127.0.0.1:${port}`;
  return {
    name: 'redis',
    command: executable('redis-server', ['/usr/bin', '/usr/sbin']),
    args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    ready: async () => {
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined); // not up yet: connect() rejects, and readiness tries again
      try {
        await client.connect();
        if ((await client.ping()) !== 'PONG') throw new Error('no PONG');
      } finally {
        client.disconnect();
      }
    },
  };
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const log = opts.log ?? (() => undefined);
  const temporary = !opts.dataDir;
  const dir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'checkout-cluster-'));
  mkdirSync(dir, { recursive: true });
  // As root, PostgreSQL runs as the postgres user, who must be able to enter the directory (mkdtemp: 0700).
  if (temporary) chmodSync(dir, 0o711);
  const logDir = path.join(dir, 'logs');
  const processes: ManagedProcess[] = [];
  const stops: Array<() => Promise<unknown>> = [];
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      for (const s of stops.reverse()) await s().catch((err: unknown) => log(`  stop failed: ${String(err)}`));
      if (temporary) rmSync(dir, { recursive: true, force: true });
    })());
  const managed = async (spec: ProcessSpec): Promise<ManagedProcess> => {
    const p = new ManagedProcess(spec, logDir);
    processes.push(p);
    stops.push(() => p.close());
    await p.start();
    log(`${spec.name}: ready (pid ${p.pid}, log ${path.relative(process.cwd(), p.logFile)})`);
    return p;
  };

  try {
    const bin = await ensureTemporalServer(log);
    const nginx = executable('nginx', ['/usr/sbin']);
    // Ports below the ephemeral range, none twice (they are bound later, by the processes started below).
    const taken = new Set<number>(Object.values(opts.ports ?? {}).filter((p): p is number => !!p));
    const ports = {
      proxy: opts.ports?.proxy || (await freeLowPort(taken)),
      postgres: opts.ports?.postgres || (await freeLowPort(taken)),
      redis: opts.ports?.redis || (await freeLowPort(taken)),
    };
    const replicas = opts.apiReplicas ?? 2;
    const apiPorts: number[] = [];
    for (let i = 0; i < replicas; i++) apiPorts.push(opts.ports?.apiBase ? opts.ports.apiBase + i : await freeLowPort(taken));
    const temporalPorts = await freeTemporalPorts(taken, opts.ports?.temporal || undefined);
    const observerPort = await freeLowPort(taken);
    const edgePorts = opts.edge
      ? { http: opts.edge.httpPort || (await freeLowPort(taken)), https: opts.edge.httpsPort || (await freeLowPort(taken)), ask: await freeLowPort(taken) }
      : undefined;
    const caddy = edgePorts ? await ensureCaddy(log) : undefined;
    const sandboxOffset = opts.sandboxPortOffset ?? (await freeSandboxOffset(taken));

    // PostgreSQL: one server, three databases; its server log in logs/postgres.log like every other process.
    mkdirSync(logDir, { recursive: true });
    const pgLog = createWriteStream(path.join(logDir, 'postgres.log'), { flags: 'a' });
    stops.push(() => new Promise<void>((resolve) => pgLog.end(resolve)));
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(dir, 'postgres'),
      port: ports.postgres,
      throwaway: temporary,
      maxConnections: 300,
      onLog: (line) => pgLog.write(`${line}\n`),
    });
    stops.push(() => postgres.stop());
    log(`postgres: ready on 127.0.0.1:${ports.postgres} (PostgreSQL 18, embedded)`);
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    const existing = new Set((await admin.query<{ datname: string }>('SELECT datname FROM pg_database')).rows.map((r) => r.datname));
    for (const db of [APP_DATABASE, 'temporal', 'temporal_visibility']) if (!existing.has(db)) await admin.query(`CREATE DATABASE ${db}`);
    await admin.end();
    const databaseUrl = postgres.url(APP_DATABASE);
    const pgTarget = { host: '127.0.0.1', port: ports.postgres, user: EMBEDDED_PG_USER, password: EMBEDDED_PG_PASSWORD };

    const redisUrl = `redis://127.0.0.1:${ports.redis}`;
    const redisReady = managed(redisServerSpec(ports.redis));

    const base = withLocalSecrets(loadConfig({ ...process.env, DATA_DIR: dir }));
    const namespace = base.temporal.namespace;
    const temporalReady = (async () => {
      await setupTemporalSchema(bin, pgTarget, log);
      mkdirSync(path.join(dir, 'temporal'), { recursive: true });
      return managed(temporalServerSpec({ bin, db: pgTarget, ports: temporalPorts, dir: path.join(dir, 'temporal'), namespace }));
    })();

    const { applied } = await migrate(databaseUrl);
    log(`migrations: up to date (${applied.length} applied now)`);
    const db = createDb(databaseUrl, { max: 2 });
    await seedFxRatesIfEmpty(db);
    await db.$disconnect();
    await Promise.all([redisReady, temporalReady]);
    const temporalAddress = `127.0.0.1:${temporalPorts.frontend}`;

    const url = `http://localhost:${ports.proxy}`;
    const env: Record<string, string> = {
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      DATA_DIR: dir,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: base.temporal.taskQueue,
      JWT_SECRET: base.jwtSecret!,
      SECRETS_KEY: base.secretsKey!,
      REDIS_URL: redisUrl,
      SANDBOX_PORT_OFFSET: String(sandboxOffset),
      // Checkout origins and links name the proxy's port; each replica listens on API_LISTEN_PORT.
      API_PORT: String(ports.proxy),
      PUBLIC_API_URL: url,
      APP_ORIGIN: url,
      // nginx and the edge both connect from loopback: X-Forwarded-* is trusted from there only.
      TRUST_PROXY: '127.0.0.1',
      // With the edge: public origins on https at its port (the processor's webhooks keep reaching nginx's http URL).
      ...(edgePorts ? { PUBLIC_HTTPS: 'true', API_PORT: String(edgePorts.https), APP_ORIGIN: `https://localhost:${edgePorts.https}` } : {}),
      ...opts.env,
    };
    const config = loadConfig({ ...process.env, ...env });
    const childEnv = (extra: Record<string, string>) => ({ ...process.env, ...env, ...extra });
    const node = (entry: string) => [process.execPath, [...SERVICE_NODE_FLAGS, '--import', 'tsx', path.join(REPO_ROOT, entry)]] as const;

    const sandboxCmd = node('scripts/cluster/sandbox-process.ts');
    await managed({
      name: 'sandbox',
      command: sandboxCmd[0],
      args: [...sandboxCmd[1]],
      cwd: REPO_ROOT,
      env: childEnv({ CLUSTER_OBSERVER_PORT: String(observerPort) }),
      ready: () => httpOk(`http://127.0.0.1:${observerPort}/health`),
    });

    const connection = await Connection.connect({ address: temporalAddress });
    stops.push(() => connection.close());
    const workerCmd = node('worker/worker.ts');
    const workers = await Promise.all(
      Array.from({ length: opts.workers ?? 2 }, (_, i) =>
        managed({
          name: `worker-${i + 1}`,
          command: workerCmd[0],
          args: [...workerCmd[1]],
          cwd: REPO_ROOT,
          env: childEnv({}),
          readyTimeoutMs: 180_000,
          stopGraceMs: 15_000,
          // Ready = this process polls the task queue (its identity, `<pid>@<host>`, is among the pollers).
          ready: async (p) => {
            const { pollers } = await connection.workflowService.describeTaskQueue({
              namespace,
              taskQueue: { name: base.temporal.taskQueue },
              taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
            });
            if (!pollers?.some((poller) => poller.identity?.startsWith(`${p.pid}@`))) throw new Error('not polling yet');
          },
        }),
      ),
    );

    const apiCmd = node('api/server.ts');
    const apis = await Promise.all(
      apiPorts.map((port, i) =>
        managed({
          name: `api-${i + 1}`,
          command: apiCmd[0],
          args: [...apiCmd[1]],
          cwd: REPO_ROOT,
          env: childEnv({ API_LISTEN_PORT: String(port), API_HOST: '127.0.0.1' }),
          readyTimeoutMs: 90_000,
          ready: () => httpOk(`http://127.0.0.1:${port}/ready`),
        }),
      ),
    );

    const nginxDir = path.join(dir, 'nginx');
    mkdirSync(nginxDir, { recursive: true });
    const nginxConfFile = path.join(nginxDir, 'nginx.conf');
    writeFileSync(nginxConfFile, nginxConf({ dir, port: ports.proxy, upstreams: apiPorts }));
    execFileSync(nginx, ['-t', '-q', '-p', nginxDir, '-c', nginxConfFile, '-g', 'daemon off;'], { stdio: 'pipe' });
    await managed({
      name: 'nginx',
      command: nginx,
      args: ['-p', nginxDir, '-c', nginxConfFile, '-g', 'daemon off;'],
      ready: () => httpOk(`http://127.0.0.1:${ports.proxy}/ready`),
    });

    let edge: Cluster['edge'];
    if (edgePorts && caddy) {
      const edgeDir = path.join(dir, 'edge');
      const storageDir = path.join(edgeDir, 'certificates');
      mkdirSync(edgeDir, { recursive: true });
      const caddyfile = path.join(edgeDir, 'Caddyfile');
      writeFileSync(caddyfile, edgeCaddyfile({
        httpPort: edgePorts.http,
        httpsPort: edgePorts.https,
        storageDir,
        upstreams: apiPorts.map((p) => `127.0.0.1:${p}`),
        askPort: edgePorts.ask,
        ca: 'local',
      }));
      const edgeUrl = `https://localhost:${edgePorts.https}`;
      const rootCert = path.join(storageDir, 'pki', 'authorities', 'local', 'root.crt');
      await managed({
        name: 'edge',
        command: caddy,
        args: ['run', '--config', caddyfile, '--adapter', 'caddyfile'],
        // Caddy's own files (autosave, locks) under the cluster's folder, not the user's home.
        env: { ...process.env, HOME: edgeDir, XDG_DATA_HOME: path.join(edgeDir, 'data'), XDG_CONFIG_HOME: path.join(edgeDir, 'config') },
        // Ready when the dashboard answers through it over https, its certificate checked against the local CA's root.
        ready: () => httpsOk(`${edgeUrl}/ready`, rootCert),
      });
      edge = { url: edgeUrl, httpUrl: `http://localhost:${edgePorts.http}`, rootCert, storageDir };
    }

    const pgDataDir = postgres.dir;
    return {
      url,
      edge,
      temporalAddress,
      databaseUrl,
      redisUrl,
      config,
      observerUrl: `http://127.0.0.1:${observerPort}`,
      apis,
      workers,
      processes,
      logDir,
      postgres,
      async pausePostgres(ms: number) {
        if (!existsSync(path.join(pgDataDir, 'postmaster.pid'))) throw new Error('PostgreSQL is not running');
        const pids = postgresPids(pgDataDir);
        const signal = (s: NodeJS.Signals) => pids.forEach((pid) => {
          try {
            process.kill(pid, s);
          } catch {
            // gone
          }
        });
        signal('SIGSTOP');
        try {
          await new Promise((r) => setTimeout(r, ms));
        } finally {
          signal('SIGCONT');
        }
      },
      async observe() {
        const res = await fetch(`http://127.0.0.1:${observerPort}/observations`, { signal: AbortSignal.timeout(30_000) });
        if (!res.ok) throw new Error(`observer answered ${res.status}`);
        return (await res.json()) as SandboxReport;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
