// The cluster's one sandbox process: every simulator on its fixed port (+ SANDBOX_PORT_OFFSET), exactly as
// `npm start` runs them, plus an observer port (CLUSTER_OBSERVER_PORT) that reports what the simulators saw
// per checkout session (payment webhooks, store orders, emails) for the flash-sale benchmark and the drill.
// Simulators keep state in memory, so they must run once for all API replicas and workers.
import Fastify from 'fastify';
import { loadConfig } from '../../config/index.js';
import { startSandbox } from '../../sandbox/index.js';
import { observeSandbox } from './observer.js';

const config = loadConfig();
const observerPort = Number(process.env.CLUSTER_OBSERVER_PORT);
if (!Number.isInteger(observerPort) || observerPort <= 0) {
  console.error('CLUSTER_OBSERVER_PORT must be set');
  process.exit(2);
}
const sandbox = await startSandbox(config);
const observer = observeSandbox(sandbox.sims);
const app = Fastify({ logger: false });
app.get('/observations', async () => observer.report());
app.get('/health', async () => ({ ok: true, simulators: sandbox.simulators.length }));
await app.listen({ host: config.sandbox.host, port: observerPort });
console.log(`sandbox: ${sandbox.simulators.length} simulators up; observer on :${observerPort}`);
for (const page of sandbox.pages) console.log(`  ${page.label.padEnd(14)} ${page.url}`);

const stop = async () => {
  await app.close();
  await sandbox.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
