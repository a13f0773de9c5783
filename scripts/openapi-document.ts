// The OpenAPI document as a file, for the TypeScript SDK (sdk/): built from the same app the server runs, with
// the sandbox off and the default service domain, without a database or Temporal (nothing is queried to
// describe the routes). `npm run sdk:generate` writes it to sdk/openapi.json and the SDK's types from it;
// test/sdk/document.test.ts fails when the committed file no longer matches the app.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../config/index.js';
import { buildApp } from '../api/app.js';
import { createDb } from '../prisma/client.js';

/** What the SDK is generated from: stable across machines (no ports, paths or secrets of this one). */
export const SDK_DOCUMENT_ENV = {
  NODE_ENV: 'development',
  SANDBOX_ENABLED: 'false',
  SERVICE_DOMAIN: 'localhost',
  API_PORT: '3000',
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'openapi-document-only-'.padEnd(48, 'x'),
  SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
  DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none',
} as const;

/** `read` of the app as the SDK document describes it: built and ready, never listening, closed afterwards. */
export async function withDescribedApp<T>(read: (app: FastifyInstance) => T): Promise<T> {
  const config = loadConfig({ ...SDK_DOCUMENT_ENV });
  const db = createDb(config.databaseUrl!);
  const connection = Connection.lazy({ address: '127.0.0.1:1' });
  const app = await buildApp({ config, db, temporal: { client: new Client({ connection }), connection }, logger: false });
  try {
    await app.ready();
    return read(app);
  } finally {
    await app.close();
    await db.$disconnect();
    await connection.close().catch(() => undefined);
  }
}

export const openApiDocument = (): Promise<Record<string, unknown>> => withDescribedApp((app) => app.swagger() as unknown as Record<string, unknown>);

/** The document as written to sdk/openapi.json (sorted keys are not needed: the app's order is stable). */
export const documentText = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'sdk', 'openapi.json');
  await writeFile(out, documentText(await openApiDocument()));
  console.log(`OpenAPI document written to ${path.relative(process.cwd(), out)}`);
  process.exit(0);
}
