// The query fields every cursor-paged list takes (orders, webhook deliveries, events): one definition, so the
// lists page alike and the OpenAPI document describes them alike. The cursor itself is api/pagination.ts.
import { z } from 'zod';
import { chars } from './text.js';

export const PAGE_SIZE_DEFAULT = 25;
export const PAGE_SIZE_MAX = 100;

export const pageQuery = {
  limit: z
    .string()
    .regex(/^(?!0+$)[0-9]{1,6}$/, 'a whole number from 1')
    .transform((n) => Math.min(Number(n), PAGE_SIZE_MAX))
    .optional()
    .describe(`Page size, default ${PAGE_SIZE_DEFAULT}; larger values are capped at ${PAGE_SIZE_MAX}`),
  cursor: chars(300).optional().describe('nextCursor of the previous page (opaque: any other value answers INVALID_INPUT)'),
};
