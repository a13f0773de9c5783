// The app's one request validator: fastify-type-provider-zod's, behind one rule every route shares.
//
// Every string the API accepts — body, query string, route params, headers, property names included — is
// refused with 400 INVALID_INPUT naming the field when it holds U+0000 or an unpaired UTF-16 surrogate,
// which no column can store (domain/text.ts). The rule sits in the validator compiler rather than in the
// schemas or a body hook: Fastify calls the compiler for each part of every route that declares a schema,
// so no route, present or future, can miss it, and the answer is an ordinary validation error (errors.ts
// turns it into `details.fields` like any zod issue). Raw-body webhook routes have no body schema: their
// bodies are kept as evidence and made storable there (api/incoming-webhooks.ts).
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import { findUnstorableText, TEXT_PROBLEM_MESSAGES, type UnstorableText } from '../domain/text.js';

type Compiler = typeof zodValidatorCompiler;

/** The validation issue for text that cannot be stored, shaped like the zod ones. */
export function unstorableTextIssue(found: UnstorableText): FastifySchemaValidationError {
  const message = found.inKey ? `property names ${TEXT_PROBLEM_MESSAGES[found.problem]}` : TEXT_PROBLEM_MESSAGES[found.problem];
  return { keyword: 'text', instancePath: found.path.map((p) => `/${p}`).join(''), schemaPath: '#/text', params: { problem: found.problem }, message };
}

/** zod's validator compiler, refusing unstorable text first (see above). */
export const validatorCompiler: Compiler = (route) => {
  const validate = zodValidatorCompiler(route) as ReturnType<FastifySchemaCompiler<unknown>>;
  return (data: unknown) => {
    const found = findUnstorableText(data);
    if (found) return { error: [unstorableTextIssue(found)] };
    return validate(data);
  };
};
