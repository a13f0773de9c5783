// The OpenAPI document is generated from the same zod schemas that validate requests and serialize
// responses, so it cannot drift from the code: JSON at /docs/json, browsable at /docs.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

export const openapiPlugin = fp(async (app: FastifyInstance, opts: { serverUrl: string }) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Checkout service API',
        version: '0.1.0',
        description:
          'Hosted checkout for online stores. Errors are always `{ error, code }` (see the Error schema). Strings never contain U+0000 ' +
          'or an unpaired UTF-16 surrogate: any string that does (body, query, path) answers 400 INVALID_INPUT naming the field.',
      },
      servers: [{ url: opts.serverUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}, { name: 'openapi' });
