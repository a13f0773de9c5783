// Readiness against real outages: a PostgreSQL cluster and a Temporal dev server of this test's own are
// stopped, while the harness's shared ones stay up to show that /ready names exactly the one that is down.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.js';
import { createDb, type Db } from '../../../prisma/client.js';
import { startPostgres, type PostgresCluster } from '../../../scripts/lib/stack/postgres.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../../scripts/lib/temporal-dev-server.js';
import { testConfig } from '../../../scripts/lib/stack/config.js';

let ownPostgres: PostgresCluster;
let ownTemporal: TemporalDevServer;
const dbs: Db[] = [];
const connections: Connection[] = [];
const apps: FastifyInstance[] = [];

async function appOn(databaseUrl: string, temporalAddress: string): Promise<FastifyInstance> {
  const db = createDb(databaseUrl);
  const connection = Connection.lazy({ address: temporalAddress });
  dbs.push(db);
  connections.push(connection);
  const app = await buildApp({ config: testConfig(), db, temporal: { client: new Client({ connection }), connection }, logger: false });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  [ownPostgres, ownTemporal] = await Promise.all([startPostgres(), startTemporalDevServer()]);
});
afterAll(async () => {
  for (const app of apps) await app.close();
  for (const db of dbs) await db.$disconnect();
  for (const c of connections) await c.close().catch(() => undefined);
  await ownTemporal?.stop();
  await ownPostgres?.stop();
});

describe('readiness during outages', () => {
  it('given the Temporal server stopped and the database up / it answers 503 naming temporal', async () => {
    const app = await appOn(inject('postgresUrl'), ownTemporal.address);
    expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);

    await ownTemporal.stop();
    const res = await app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(503);
    const body = res.json();
    expect(body).toMatchObject({ error: 'Not ready: temporal unreachable', code: 'NOT_READY', checks: { database: { ok: true }, temporal: { ok: false } } });
    expect(body.checks.temporal.error).toEqual(expect.any(String));
  });

  it('given the database stopped and Temporal up / it answers 503 naming the database', async () => {
    const app = await appOn(ownPostgres.url(), inject('temporalAddress'));
    expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);

    await ownPostgres.stop();
    const res = await app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: 'Not ready: database unreachable', code: 'NOT_READY', checks: { database: { ok: false }, temporal: { ok: true } } });
  });

  it('given both stopped / it names both, while /health still answers', async () => {
    const app = await appOn(ownPostgres.url(), ownTemporal.address);
    const res = await app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: 'Not ready: database and temporal unreachable', checks: { database: { ok: false }, temporal: { ok: false } } });
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });

  it('given a probe while Temporal is unreachable and the app closed at once / nothing of the probe outlives the close', async () => {
    const uncaught: Error[] = [];
    const onUncaught = (err: Error) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const app = await appOn(inject('postgresUrl'), '127.0.0.1:1'); // nothing listens there: connection refused
      const res = await app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      await app.close();
      await connections.at(-1)!.close();
      // The SDK's retrying interceptor would still hold a timer for its next attempt (seconds later, on the
      // closed channel); wait past the longest such chain for the probe's 2 s deadline.
      await new Promise((resolve) => setTimeout(resolve, 4_500));
      expect(uncaught.map((err) => err.message)).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
