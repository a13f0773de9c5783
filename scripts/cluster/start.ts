// `npm run start:cluster`: the clustered topology on this machine (scripts/cluster/cluster.ts): PostgreSQL,
// Redis, the real Temporal server on PostgreSQL, the sandbox, 2 workers, 2 API replicas behind nginx and the TLS edge. Data
// stays in DATA_DIR/cluster between runs; Ctrl-C stops every process, newest first. Ports sit beside
// `npm start`'s so both can run at once (CLUSTER_* variables move them).
import path from 'node:path';
import { loadConfig, SANDBOX_PORTS } from '../../config/index.js';
import { startCluster, type Cluster } from './cluster.js';

const t0 = Date.now();
const log = (line: string) => console.log(`[cluster +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}`);
const int = (name: string, fallback: number) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  if (!/^\d+$/.test(v)) {
    console.error(`${name} must be a whole number, not ${JSON.stringify(v)}`);
    process.exit(2);
  }
  return Number(v);
};

const config = loadConfig();
const proxyPort = int('CLUSTER_PORT', 3100);
let cluster: Cluster | undefined;
let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping every process …');
  await cluster?.stop();
  log('stopped');
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

try {
  cluster = await startCluster({
    dataDir: path.join(config.dataDir, 'cluster'),
    apiReplicas: int('CLUSTER_API_REPLICAS', 2),
    workers: int('CLUSTER_WORKERS', 2),
    ports: {
      proxy: proxyPort,
      apiBase: int('CLUSTER_API_BASE_PORT', proxyPort + 1),
      postgres: int('CLUSTER_POSTGRES_PORT', 54339),
      redis: int('CLUSTER_REDIS_PORT', 6389),
      temporal: int('CLUSTER_TEMPORAL_PORT', 7333),
    },
    sandboxPortOffset: int('CLUSTER_SANDBOX_PORT_OFFSET', 100),
    // The TLS edge with Caddy's local CA: https://localhost:3443, https://<slug>.localhost:3443 (http on 3080 redirects).
    edge: { httpsPort: int('CLUSTER_HTTPS_PORT', 3443), httpPort: int('CLUSTER_HTTP_PORT', 3080) },
    log,
  });
} catch (err) {
  console.error(`\nnpm run start:cluster failed: ${(err as Error).message}\n`);
  await shutdown(1);
}
const c = cluster!;
console.log(`
Cluster is up. Open:
  HTTPS (TLS edge → ${c.apis.length} replicas) ${c.edge!.url}   (dashboard; checkouts at https://<slug>.localhost:${new URL(c.edge!.url).port}; http ${c.edge!.httpUrl} redirects)
                              certificates from Caddy's local CA, root ${path.relative(process.cwd(), c.edge!.rootCert)} (trust it in a browser, or NODE_EXTRA_CA_CERTS for Node)
  API (nginx → ${c.apis.length} replicas)  ${c.url}   (internal http: webhooks; readiness ${c.url}/ready, OpenAPI ${c.url}/docs)
  Temporal frontend           ${c.temporalAddress}   (real server on PostgreSQL; \`temporal --address ${c.temporalAddress} workflow list\`)
  PostgreSQL                  ${c.databaseUrl.replace(/:[^:@/]+@/, ':***@')}   (+ databases temporal, temporal_visibility)
  Redis (rate limits)         ${c.redisUrl}
  Sandbox                     processor ${c.config.sandbox.urls.processor}, store B ${c.config.sandbox.urls.storefrontB}, mailbox ${c.config.sandbox.urls.email}
  Logs                        ${path.relative(process.cwd(), c.logDir)}/<process>.log   (${c.processes.map((p) => p.name).join(', ')})

Try: NODE_EXTRA_CA_CERTS=${c.edge!.rootCert} DEMO_API_URL=${c.edge!.url} SANDBOX_PORT_OFFSET=${c.config.sandbox.ports.processor - SANDBOX_PORTS.processor} npm run demo
Press Ctrl-C to stop everything.
`);
