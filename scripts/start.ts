// `npm start`: the whole service on one machine with embedded defaults. Starts, in order, a Temporal dev
// server (state in DATA_DIR/temporal, Web UI on), PostgreSQL (an embedded real server, data in DATA_DIR/postgres,
// unless DATABASE_URL is set), migrations and seed data, the local simulators, the Temporal worker and the API
// (which serves the web pages, built meanwhile when their sources changed); waits for each, prints every URL,
// and stops all of them on Ctrl-C. A second start keeps the data.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { backgroundTaskQueue } from '../domain/temporal/task-queues.js';
import type { FastifyInstance } from 'fastify';
import { loadConfig, ConfigError } from '../config/index.js';
import { createDb, type Db } from '../prisma/client.js';
import { migrate } from '../prisma/migrate.js';
import { buildApp } from '../api/app.js';
import { createActivities, createWorker } from '../worker/worker.js';
import { seedFxRatesIfEmpty } from '../activities/fx/fx-rates.js';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { DEMO_APP } from '../sandbox/storefront-a/simulator.js';
import { deployThemeExtension } from './lib/theme-extension.js';
import { ensureTemporalCli, ProvisionError } from './lib/temporal-binaries.js';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from './lib/embedded-postgres.js';
import { ensureSchedules } from '../worker/schedules.js';
import { withLocalSecrets } from './lib/local-secrets.js';
import { devServerArgs, waitForTemporal, stopChild } from './lib/temporal-dev-server.js';
import { ensureWebBuild, WEB_TARGETS } from './web-build.js';

const t0 = Date.now();
const log = (line: string) => console.log(`[start +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}`);

type Stop = { name: string; run: () => Promise<unknown> };
const stops: Stop[] = [];
let temporalChild: ChildProcess | undefined;
let shuttingDownSince: number | undefined;

async function shutdown(code: number): Promise<never> {
  if (shuttingDownSince !== undefined) {
    // A terminal's Ctrl-C reaches us twice (process group + the tsx wrapper relaying it): only a later,
    // deliberate second Ctrl-C forces the exit.
    if (Date.now() - shuttingDownSince > 3_000) process.exit(code);
    return new Promise<never>(() => undefined);
  }
  shuttingDownSince = Date.now();
  log('stopping … (Ctrl-C again to force)');
  for (const stop of stops.reverse()) {
    try {
      await stop.run();
      log(`  stopped ${stop.name}`);
    } catch (err) {
      console.error(`  could not stop ${stop.name}: ${(err as Error).message}`);
    }
  }
  process.exit(code);
}

// The dev server is our child: never leave it behind, whatever happens to this process.
process.on('exit', () => temporalChild?.kill('SIGKILL'));

async function startTemporal(config: ReturnType<typeof loadConfig>): Promise<string> {
  if (config.temporal.address) {
    log(`Temporal: using ${config.temporal.address}`);
    await waitForTemporal(config.temporal.address, 15_000);
    return config.temporal.address;
  }
  const cli = await ensureTemporalCli((line) => log(line));
  const dir = path.join(config.dataDir, 'temporal');
  mkdirSync(dir, { recursive: true });
  const args = devServerArgs({
    port: config.temporal.devPort,
    uiPort: config.temporal.uiPort,
    headless: false,
    dbFilename: path.join(dir, 'temporal.db'),
    namespace: config.temporal.namespace,
  });
  log(`Temporal: starting dev server on :${config.temporal.devPort} (UI :${config.temporal.uiPort})`);
  // Its own process group: a terminal's Ctrl-C reaches only us, and we stop the server last, after the
  // worker has reported its last activity results (else the worker retries against a dead server).
  const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  temporalChild = child;
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  stops.push({ name: 'Temporal dev server', run: () => stopChild(child, 8_000) });
  const address = `127.0.0.1:${config.temporal.devPort}`;
  try {
    await waitForTemporal(address, 60_000, child);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${output.trim()}\n(Is port ${config.temporal.devPort} taken? Set TEMPORAL_DEV_PORT.)`);
  }
  return address;
}

async function startDatabase(config: ReturnType<typeof loadConfig>): Promise<string> {
  if (config.databaseUrl) {
    log('Database: using DATABASE_URL');
    return config.databaseUrl;
  }
  const dataDir = path.join(config.dataDir, 'postgres');
  const port = config.embeddedPostgresPort;
  log(`Database: starting embedded PostgreSQL on 127.0.0.1:${port} (data in ${path.relative(process.cwd(), dataDir)})`);
  let server: EmbeddedPostgresServer;
  try {
    server = await startEmbeddedPostgres({ dataDir, port });
  } catch (err) {
    throw new Error(`Could not start PostgreSQL on port ${port}: ${(err as Error).message}\n(set EMBEDDED_POSTGRES_PORT, or DATABASE_URL for a server of your own)`);
  }
  stops.push({ name: 'PostgreSQL', run: () => server.stop() });
  return server.url();
}

/** The web pages (checkout, dashboard, script tag), each rebuilt only when its sources changed; a failed build is reported, not fatal. */
async function buildWeb(): Promise<void> {
  for (const target of WEB_TARGETS) {
    try {
      await ensureWebBuild({ targets: [target], log });
    } catch (err) {
      console.error(`\nWeb: the ${target} build failed (its pages answer 503 until \`npm run web:build\` succeeds):\n${(err as Error).message}\n`);
    }
  }
}

async function main() {
  let config = withLocalSecrets(loadConfig());
  log(`checkout service, ${config.env} mode, data in ${path.relative(process.cwd(), config.dataDir) || '.'}`);

  const web = buildWeb();
  const [temporalAddress, databaseUrl] = await Promise.all([startTemporal(config), startDatabase(config)]);
  config = { ...config, databaseUrl, temporal: { ...config.temporal, address: temporalAddress } };

  const { applied } = await migrate(databaseUrl, { log: (line) => log(`  ${line}`) });
  log(`Database: migrations up to date (${applied.length} applied now)`);
  const db: Db = createDb(databaseUrl);
  stops.push({ name: 'database client', run: () => db.$disconnect() });
  if (await seedFxRatesIfEmpty(db)) log('Database: FX rates seeded from the committed ECB snapshot');

  let sandbox: RunningSandbox | undefined;
  if (config.sandbox.enabled) {
    sandbox = await startSandbox(config);
    stops.push({ name: 'sandbox simulators', run: () => sandbox!.stop() });
    log(`Sandbox: ${sandbox.simulators.length} simulators up`);
    // `shopify app deploy`, locally: the demo app carries our theme app extension (again after a sandbox reset);
    // the merchant turns its app embed on in the theme editor (the dashboard links there).
    const storefrontAUrl = config.sandbox.urls.storefrontA;
    await deployThemeExtension(storefrontAUrl, DEMO_APP.clientId);
    sandbox.sims.storefrontA.onReset(() => deployThemeExtension(storefrontAUrl, DEMO_APP.clientId));
    log(`Sandbox: theme app extension (store-extensions/storefront-a-theme-extension) deployed to the demo storefront A app`);
  }

  const connection = await Connection.connect({ address: temporalAddress });
  stops.push({ name: 'Temporal client', run: () => connection.close() });
  const client = new Client({ connection, namespace: config.temporal.namespace });

  log('Worker: bundling workflows …');
  const nativeConnection = await NativeConnection.connect({ address: temporalAddress });
  const worker = await createWorker({
    connection: nativeConnection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities: createActivities({ config, db, temporal: { client } }),
    backgroundSlots: config.temporal.backgroundSlots,
  });
  const running = worker.run();
  stops.push({
    name: 'worker',
    run: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await nativeConnection.close();
    },
  });
  await ensureSchedules(client, config);
  log(`Worker: running on task queues "${config.temporal.taskQueue}" and "${backgroundTaskQueue(config.temporal.taskQueue)}" (${config.temporal.backgroundSlots} at a time)`);

  await web;
  const app: FastifyInstance = await buildApp({ config, db, temporal: { client, connection } });
  await app.listen({ host: config.api.host, port: config.api.port });
  stops.push({ name: 'API', run: () => app.close() });

  const api = `http://localhost:${config.api.port}`;
  const rows: Array<[string, string]> = [
    ['API', `${api}   (health: ${api}/health, readiness: ${api}/ready)`],
    ['API docs (OpenAPI)', `${api}/docs   (JSON: ${api}/docs/json)`],
    ['Merchant dashboard', `${api}/   (checkout pages: http://<slug>.localhost:${config.api.port}/checkout/<token>)`],
    ['Temporal Web UI', `${config.temporal.uiUrl}   (schedule "fx-rates-daily" under Schedules)`],
    ...(sandbox?.pages.map((p): [string, string] => [`Sandbox ${p.label}`, p.url]) ?? []),
  ];
  // One column for the names, as wide as the longest (a long simulator name must not run into its URL).
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  const lines = ['', 'Checkout service is up. Open:', ...rows.map(([name, value]) => `  ${name.padEnd(width)}${value}`), '', 'Press Ctrl-C to stop everything.', ''];
  console.log(lines.join('\n'));
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

main().catch(async (err: unknown) => {
  if (err instanceof ConfigError || err instanceof ProvisionError) console.error(`\n${err.message}\n`);
  else console.error('\nnpm start failed:', err);
  await shutdown(1);
});
