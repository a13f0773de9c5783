// Response serializers compiled from the zod schemas, for the hot read paths whose answer the handler builds
// field by field (the session bundle). The app's default, fastify-type-provider-zod's serializer, validates
// every answer with zod before JSON.stringify: on the bundle that is 7 us per answer, 3× JSON.stringify alone.
// fast-json-stringify (Fastify's own default serializer) compiled from the same schema's JSON Schema writes
// exactly the documented properties (undeclared ones are dropped, a missing required one throws: a 500, never
// a partial answer) in about half JSON.stringify's time. It does not check values (an enum, a format): the
// handler builds them from typed values, and the route's tests compare its answer with the zod schema's output.
import fastJson from 'fast-json-stringify';
import { z } from 'zod';

export function compiledSerializer(schema: z.ZodType): (data: unknown) => string {
  const jsonSchema = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'output',
    // zod strips undeclared properties; fast-json-stringify writes only declared ones unless told otherwise, so
    // `additionalProperties: false` adds nothing here but would make it refuse (500) a nullable object that
    // carries one extra property (it checks `anyOf` branches against the schema to pick one).
    override: ({ jsonSchema: node }) => {
      if (node.additionalProperties === false) delete node.additionalProperties;
    },
  });
  return fastJson(jsonSchema as Parameters<typeof fastJson>[0]);
}
