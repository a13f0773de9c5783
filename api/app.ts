// buildApp(deps): the whole HTTP API without listening, so tests drive it with `inject` and server.ts
// runs it for real. Plugins first (errors, limits, CORS, docs), then one route plugin per resource group.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Client, Connection } from '@temporalio/client';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import { errorsPlugin } from './plugins/errors.js';
import { corsPlugin } from './plugins/cors.js';
import { requestLimitsPlugin } from './plugins/request-limits.js';
import { openapiPlugin } from './plugins/openapi.js';
import { healthRoutes } from './routes/health/index.js';

export interface AppDeps {
  config: Config;
  db: Db;
  temporal: { client: Client; connection: Connection };
  logger?: FastifyServerOptions['logger'];
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: deps.logger ?? {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-processor-signature"]'],
    },
    bodyLimit: config.api.bodyLimit,
    trustProxy: config.api.trustProxy,
    requestIdHeader: false,
    // Keep a caller's request id when it looks like one, so a request can be followed across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(errorsPlugin);
  await app.register(requestLimitsPlugin, { bodyLimit: config.api.bodyLimit });
  await app.register(corsPlugin, {
    appOrigin: config.appOrigin,
    serviceDomain: config.serviceDomain,
    storefrontAShopSuffix: config.storefrontA.shopSuffix,
    allowHttp: config.env !== 'production',
    extraOrigins: config.sandbox.enabled ? Object.values(config.sandbox.urls) : [],
  });
  await app.register(openapiPlugin, { serverUrl: config.api.publicUrl });

  await app.register(healthRoutes, { db: deps.db, temporal: deps.temporal });
  return app;
}
