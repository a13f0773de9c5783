// `npm run api`: the API alone (production, docker-compose). Listens, and on SIGINT/SIGTERM stops
// taking requests, lets those in flight finish, then closes its connections.
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../config/index.js';
import { createDb } from '../prisma/client.js';
import { buildApp } from './app.js';

const config = loadConfig();
if (!config.databaseUrl || !config.temporal.address) {
  console.error('npm run api needs DATABASE_URL and TEMPORAL_ADDRESS (npm start runs everything locally instead)');
  process.exit(2);
}
const db = createDb(config.databaseUrl);
// Lazy: the API starts (and /ready reports the outage) even while Temporal is still coming up.
const connection = Connection.lazy({ address: config.temporal.address });
const client = new Client({ connection, namespace: config.temporal.namespace });
const app = await buildApp({ config, db, temporal: { client, connection } });

let closing = false;
const close = async (signal: string) => {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down');
  await app.close();
  await connection.close().catch(() => undefined);
  await db.$disconnect();
  process.exit(0);
};
process.on('SIGINT', () => void close('SIGINT'));
process.on('SIGTERM', () => void close('SIGTERM'));

await app.listen({ host: config.api.host, port: config.api.listenPort });
