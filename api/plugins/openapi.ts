// The OpenAPI document is generated from the same zod schemas that validate requests and serialize
// responses, so it cannot drift from the code: JSON at /docs/json, browsable at /docs.
// test/api/openapi-conformance.test.ts fuzzes the API with Schemathesis against this document (docs/api.md).
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifySchema } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';
import { keyPolicyOf, type RouteAuth } from '../../domain/merchant/route-rights.js';
import { webhooksDocument } from '../schemas/merchant-webhooks.js';

const DESCRIPTION = [
  'Hosted checkout for online stores. Errors are always `{ error, code }` (see the Error schema); 400 INVALID_INPUT names the fields in `details.fields`.',
  '',
  'Text fields are trimmed: whitespace around a value is dropped, and patterns state the value as sent. Lengths count characters (code points).',
  'A request the schemas accept can still be refused by a rule that depends on stored data or on the outside world; each operation\'s description says which.',
  'A method a path does not support answers 405 METHOD_NOT_ALLOWED with an Allow header.',
  '',
  'Merchant operations (bearerAuth) take a dashboard session token or a secret API key (`ck_live_…` / `ck_test_…`, made on the dashboard\'s API keys page). ' +
    'A key needs the scope its operation names in `x-required-scope` (`<resource>:read` or `<resource>:write`; write implies read), else 403 FORBIDDEN with ' +
    '`details.requiredScope`; operations marked `x-session-only` refuse keys. Each key has its own rate limit (429 RATE_LIMITED with Retry-After and RateLimit-* headers).',
  'Every merchant POST takes an optional `Idempotency-Key` header: the first answer is kept 24 hours and replayed (`Idempotent-Replayed: true`) for the same request.',
  'Every answer carries `Request-Id` (and `x-request-id`): quote it when reporting a problem. Endpoints carry no version prefix; clients must tolerate added fields, ' +
    'and a breaking change would come under a path prefix such as /v2/ with 6 months of warning. Details: docs/api.md.',
].join('\n');

/** `/api/checkout/:token/pay` → `/api/checkout/{token}/pay`, as @fastify/swagger writes paths. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*/g, '{*}');

/** A body the route takes or leaves out (e.g. refund's `.nullish()`); a raw-bytes body (z.unknown()) stays required. */
function bodyIsOptional(body: unknown): boolean {
  const schema = body as ZodType | undefined;
  const type = (schema as { _zod?: { def?: { type?: string } } } | undefined)?._zod?.def?.type;
  return (type === 'optional' || type === 'nullable') && schema!.safeParse(undefined).success;
}

type OperationSchema = FastifySchema & { description?: string; 'x-required-scope'?: string; 'x-session-only'?: true };

/** A bearer operation's API key policy as its route declares it (domain/merchant/api-keys.ts), stated as `x-required-scope` / `x-session-only` and in its description. */
function withKeyPolicy(schema: OperationSchema, auth: RouteAuth | undefined): OperationSchema {
  // A route without a schema (the test-only ones) has nothing to state: typed as always present, it is not.
  if (!(schema as OperationSchema | undefined)?.security?.some((s) => 'bearerAuth' in s)) return schema;
  const policy = keyPolicyOf(auth);
  const note = policy.kind === 'scope'
    ? `API keys need the \`${policy.scope}\` scope.`
    : 'Dashboard sessions only: an API key gets 403 FORBIDDEN.';
  const description = schema.description ? `${schema.description}\n\n${note}` : note;
  return policy.kind === 'scope'
    ? { ...schema, description, 'x-required-scope': policy.scope }
    : { ...schema, description, 'x-session-only': true };
}

export const openapiPlugin = fp(async (app: FastifyInstance, opts: { serverUrl: string }) => {
  // @fastify/swagger marks every requestBody required (Fastify needs one when a body schema exists, but a zod
  // schema decides here): operations whose body may be left out are noted as they register.
  const optionalBodies: Array<{ path: string; method: string }> = [];
  app.addHook('onRoute', (route) => {
    if (!route.schema?.body || !bodyIsOptional(route.schema.body)) return;
    for (const method of [route.method].flat()) optionalBodies.push({ path: openApiPath(route.url), method: method.toLowerCase() });
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Checkout service API', version: '0.1.0', description: DESCRIPTION },
      servers: [{ url: opts.serverUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT or API key',
            description:
              'A dashboard session token (the JWT that login and register answer) or a secret API key: `ck_live_…` in production, `ck_test_…` ' +
              'on a deployment with the sandbox (each refuses the other\'s). A key is accepted in this header only, never in the cookie.',
          },
        },
      },
    },
    transform: (input) => {
      const out = jsonSchemaTransform(input);
      return { ...out, schema: withKeyPolicy(out.schema, input.route.config as RouteAuth | undefined) };
    },
    transformObject: (input) => {
      const document = jsonSchemaTransformObject(input);
      // The events merchants receive (OpenAPI 3.1 webhooks), each payload a named schema.
      const events = webhooksDocument();
      const doc = document as { webhooks?: unknown; components?: { schemas?: Record<string, unknown> } };
      doc.webhooks = events.webhooks;
      doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ...events.schemas } };
      const paths = (document as { paths?: Record<string, Record<string, { requestBody?: { required?: boolean } }>> }).paths;
      for (const { path, method } of optionalBodies) {
        const requestBody = paths?.[path]?.[method]?.requestBody;
        if (requestBody) requestBody.required = false;
      }
      return document;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}, { name: 'openapi' });
